//! `ash run`, `ash ason` and `ash --version` end to end: the real binary as a subprocess, a
//! temporary workspace as its working directory, exact stdout/stderr bytes and exit statuses
//! (docs/contract/ash-protocol.md §2.5, §7 "`ash run`").
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    reason = "test code: a failed unwrap is the test failing, with its location"
)]

use ash_engine::ason::{self, Limits};
use std::io::Write;
use std::path::Path;
use std::process::{Command, Output, Stdio};
use tempfile::TempDir;

/// The §2.4 document ceiling, which is also the `ash run` stdin ceiling.
const STDIN_CEILING: usize = 8 * 1024 * 1024;

/// Runs `ash args…` in `cwd` with `stdin` and waits for it.
fn ash(args: &[&str], cwd: &Path, stdin: &[u8]) -> Output {
    let mut child = Command::new(env!("CARGO_BIN_EXE_ash"))
        .args(args)
        .current_dir(cwd)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn the ash binary");
    let mut pipe = child.stdin.take().expect("child stdin is piped");
    let input = stdin.to_vec();
    // Writing may fail with a broken pipe when ash stops reading early (ceiling, usage):
    // that is allowed, so the writer's result is ignored.
    let writer = std::thread::spawn(move || {
        let _ = pipe.write_all(&input);
    });
    let out = child.wait_with_output().expect("wait for ash");
    writer.join().expect("stdin writer thread");
    out
}

/// A workspace with `README.md` (7 bytes) and `src/lib.rs` (26 bytes).
fn workspace() -> TempDir {
    let dir = tempfile::tempdir().expect("temp workspace");
    std::fs::write(dir.path().join("README.md"), "# demo\n").expect("write README.md");
    std::fs::create_dir(dir.path().join("src")).expect("mkdir src");
    std::fs::write(dir.path().join("src/lib.rs"), LIB_RS).expect("write src/lib.rs");
    dir
}

const LIB_RS: &str = "fn main() {}\n// TODO item\n";

fn stdout_of(out: &Output) -> String {
    String::from_utf8(out.stdout.clone()).expect("stdout is UTF-8")
}

/// Asserts a bootstrap failure: nothing on stdout, exit status `exit`, and stderr holding exactly
/// the canonical document `s:1`, `e{c}:` with `code`, `m:` with a non-empty reason.
fn assert_bootstrap(out: &Output, code: u8, exit: i32) {
    let stderr = String::from_utf8(out.stderr.clone()).expect("stderr is UTF-8");
    assert_eq!(
        out.status.code(),
        Some(exit),
        "exit status; stderr: {stderr}"
    );
    assert!(
        out.stdout.is_empty(),
        "stdout must be empty, got {:?}",
        stdout_of(out)
    );
    let prefix = format!("s:1\ne{{c}}:\n{code}\nm:");
    assert!(
        stderr.starts_with(&prefix),
        "stderr {stderr:?} does not start with {prefix:?}"
    );
    let doc = ason::decode_canonical(stderr.as_bytes(), &Limits::default())
        .expect("stderr is one canonical ASON document");
    let keys: Vec<&str> = doc.fields.iter().map(|f| f.key.as_str()).collect();
    assert_eq!(keys, ["s", "e", "m"]);
    assert_eq!(stderr.matches('\n').count(), 4, "four lines: {stderr:?}");
    assert!(stderr.len() > prefix.len() + 1, "the reason is not empty");
}

/// Asserts a successful `ash run`: exit 0, nothing on stderr, `expected` on stdout.
fn assert_answer(out: &Output, expected: &str) {
    assert_eq!(
        out.status.code(),
        Some(0),
        "stderr: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        out.stderr.is_empty(),
        "stderr: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(stdout_of(out), expected);
}

fn blake3_hex(bytes: &[u8]) -> String {
    blake3::hash(bytes).to_hex().to_string()
}

#[test]
fn search_is_answered_on_stdout() {
    let ws = workspace();
    let out = ash(
        &["run"],
        ws.path(),
        b"t:1\ni:1\no:g\na{q,p,f}:\nTODO,[src],0\nu{tok,rec,ms}:\n256,64,30000\n",
    );
    assert_answer(
        &out,
        "t:3\ni:1\ns:0\np[1]{i,v}:\n1,src/lib.rs\nd[1]{p,l,c,t}:\n1,2,4,\"// TODO item\"\nz:0\nr:~\n",
    );
}

#[test]
fn list_is_answered_on_stdout() {
    let ws = workspace();
    let out = ash(
        &["run"],
        ws.path(),
        b"t:1\ni:2\no:l\na{p,d,f}:\n[.],2,0\nu{tok,rec,ms}:\n256,128,30000\n",
    );
    assert_answer(
        &out,
        "t:3\ni:2\ns:0\np[4]{i,v}:\n1,.\n2,README.md\n3,src\n4,src/lib.rs\n\
         d[4]{p,k,z}:\n1,1,0\n2,0,7\n3,1,0\n4,0,26\nz:0\nr:~\n",
    );
}

#[test]
fn read_is_answered_on_stdout() {
    let ws = workspace();
    let out = ash(
        &["run"],
        ws.path(),
        b"t:1\ni:19\no:r\na{p,m,o,n}:\n[src/lib.rs],1,1,80\nu{tok,rec,ms}:\n512,64,30000\n",
    );
    let h = blake3_hex(LIB_RS.as_bytes());
    assert_answer(
        &out,
        &format!(
            "t:3\ni:19\ns:0\np[1]{{i,v}}:\n1,src/lib.rs\nd[1]{{p,o,n,h,t,r}}:\n\
             1,1,2,{h},\"fn main() {{}}\\n// TODO item\\n\",~\nz:0\nr:~\n"
        ),
    );
}

#[test]
fn a_failed_operation_is_still_a_normal_answer() {
    let ws = workspace();
    let out = ash(
        &["run"],
        ws.path(),
        b"t:1\ni:4\no:r\na{p,m,o,n}:\n[nope.txt],0,0,10\nu{tok,rec,ms}:\n64,8,1000\n",
    );
    assert_answer(
        &out,
        "t:3\ni:4\ns:4\ne{c,q,p,x,a}:\n201,1,2,~,~\nz:0\nr:~\n",
    );
}

#[test]
fn schema_errors_with_an_id_get_a_100_response() {
    let ws = workspace();
    let cases: [(&str, &[u8]); 5] = [
        (
            "unknown op letter",
            b"t:1\ni:7\no:z\na:x\nu{tok,rec,ms}:\n1,1,1\n",
        ),
        (
            "event message type",
            b"t:2\ni:7\no:r\na{p,m,o,n}:\n[a],0,0,1\nu{tok,rec,ms}:\n1,1,1\n",
        ),
        ("missing budget", b"t:1\ni:7\no:r\na{p,m,o,n}:\n[a],0,0,1\n"),
        (
            "tok 0",
            b"t:1\ni:7\no:r\na{p,m,o,n}:\n[a],0,0,1\nu{tok,rec,ms}:\n0,1,1\n",
        ),
        (
            "unknown flag bit",
            b"t:1\ni:7\no:l\na{p,d,f}:\n[.],1,8\nu{tok,rec,ms}:\n64,8,1000\n",
        ),
    ];
    for (name, input) in cases {
        let out = ash(&["run"], ws.path(), input);
        assert_eq!(out.status.code(), Some(0), "{name}");
        assert_eq!(
            stdout_of(&out),
            "t:3\ni:7\ns:1\ne{c,q,p,x,a}:\n100,1,1,~,~\nz:0\nr:~\n",
            "{name}"
        );
        assert!(out.stderr.is_empty(), "{name}");
    }
}

#[test]
fn patch_fixture_with_a_stale_digest_conflicts_and_touches_nothing() {
    let ws = workspace();
    let patch = format!(
        "t:1\ni:23\no:p\na{{p,h,i,o,n,v,f}}:\n[src/lib.rs],[{}],[0],[4],[3],[pub],0\nu{{tok,rec,ms}}:\n512,64,30000\n",
        "a".repeat(64)
    );
    let out = ash(&["run"], ws.path(), patch.as_bytes());
    assert_answer(
        &out,
        &format!(
            "t:3\ni:23\ns:8\np[1]{{i,v}}:\n1,src/lib.rs\nd[1]{{p,s,h}}:\n1,1,{}\ne{{c,q,p,x,a}}:\n501,1,4,~,~\nz:0\nr:~\n",
            blake3::hash(LIB_RS.as_bytes()).to_hex()
        ),
    );
    assert_eq!(
        std::fs::read_to_string(ws.path().join("src/lib.rs")).expect("read back"),
        LIB_RS
    );
}

#[test]
fn exec_runs_and_reports_reduced_output_with_a_reference() {
    let ws = workspace();
    let out = ash(
        &["run"],
        ws.path(),
        b"t:1\ni:5\no:x\na{x,v,c,e,in,f}:\nsh,[-c,\"for i in 1 2 3 4 5 6; do echo alpha; done; echo oops >&2; exit 3\"],.,[],~,0\n\
u{tok,rec,ms}:\n512,64,30000\n",
    );
    let text = stdout_of(&out);
    // ms varies; everything else is exact.
    let (head, rest) = text
        .split_once("d{k,c,ms,o,e,ro,re}:\n0,3,")
        .expect("exec data row");
    assert_eq!(head, "t:3\ni:5\ns:5\n");
    let (_ms, rest) = rest.split_once(',').expect("ms cell");
    assert_eq!(
        rest,
        "\"alpha\\n×6\\n\",\"oops\\n\",@1,~\ne{c,q,p,x,a}:\n401,0,4,~,~\nz:11\nr:~\n"
    );
}

#[test]
fn usage_errors_exit_2() {
    let ws = workspace();
    assert_bootstrap(&ash(&[], ws.path(), b""), 1, 2);
    assert_bootstrap(&ash(&["frobnicate"], ws.path(), b""), 1, 2);
    assert_bootstrap(&ash(&["run", "extra"], ws.path(), b""), 1, 2);
    assert_bootstrap(&ash(&["rum"], ws.path(), b"t:1\n"), 1, 2);
}

#[test]
fn stdin_over_8_mib_is_code_2() {
    let ws = workspace();
    let big = vec![b'a'; STDIN_CEILING + 1];
    assert_bootstrap(&ash(&["run"], ws.path(), &big), 2, 3);
    assert_bootstrap(&ash(&["ason"], ws.path(), &big), 2, 3);
}

#[test]
fn stdin_of_exactly_8_mib_passes_the_ceiling() {
    // Eight canonical fields of 1,048,572 bytes each: exactly 8 MiB, valid ASON, no id.
    let ws = workspace();
    let mut doc = String::with_capacity(STDIN_CEILING);
    for k in 0..8 {
        doc.push_str(&format!("k{k}:"));
        doc.push_str(&"a".repeat(1_048_572));
        doc.push('\n');
    }
    assert_eq!(doc.len(), STDIN_CEILING);
    assert_bootstrap(&ash(&["run"], ws.path(), doc.as_bytes()), 6, 4);
    let out = ash(&["ason"], ws.path(), doc.as_bytes());
    assert_eq!(out.status.code(), Some(0));
    assert_eq!(out.stdout, doc.as_bytes());
}

#[test]
fn invalid_utf8_is_code_3() {
    let ws = workspace();
    assert_bootstrap(&ash(&["run"], ws.path(), b"t:1\ni:\xff\n"), 3, 3);
    assert_bootstrap(&ash(&["ason"], ws.path(), b"k:\xc3\n"), 3, 3);
}

#[test]
fn ason_syntax_errors_are_code_4() {
    let ws = workspace();
    let cases: [&[u8]; 6] = [
        b"",
        b"t:1",
        b"t:1\n\n",
        b"t:1\r\n",
        b"t:1\nt:2\n",
        b"k:\"unterminated\n",
    ];
    for input in cases {
        assert_bootstrap(&ash(&["run"], ws.path(), input), 4, 3);
        assert_bootstrap(&ash(&["ason"], ws.path(), input), 4, 3);
    }
}

#[test]
fn non_canonical_run_input_is_code_5() {
    let ws = workspace();
    // `"safe"` must be bare; `"1"` likewise.
    assert_bootstrap(&ash(&["run"], ws.path(), b"k:\"safe\"\n"), 5, 4);
    assert_bootstrap(
        &ash(
            &["run"],
            ws.path(),
            b"t:1\ni:\"1\"\no:l\na{p,d,f}:\n[.],0,0\nu{tok,rec,ms}:\n64,8,1000\n",
        ),
        5,
        4,
    );
}

#[test]
fn requests_without_a_usable_id_are_code_6() {
    let ws = workspace();
    let cases: [&[u8]; 4] = [
        b"t:1\ni:0\no:l\na{p,d,f}:\n[.],0,0\nu{tok,rec,ms}:\n64,8,1000\n",
        b"t:1\no:l\na{p,d,f}:\n[.],0,0\nu{tok,rec,ms}:\n64,8,1000\n",
        b"t:1\ni:x\no:l\na{p,d,f}:\n[.],0,0\nu{tok,rec,ms}:\n64,8,1000\n",
        b"k:safe\n",
    ];
    for input in cases {
        assert_bootstrap(&ash(&["run"], ws.path(), input), 6, 4);
    }
}

#[test]
fn ason_canonicalises_stdin() {
    let ws = workspace();
    let cases: [(&[u8], &str); 4] = [
        (b"k:\"safe\"\n", "k:safe\n"),
        (b"k:\"a\\u{41}\"\n", "k:aA\n"),
        (b"k:\"@7\"\nn:\"-1\"\n", "k:\"@7\"\nn:-1\n"),
        (b"v:[\"x\",\"\",~]\n", "v:[x,\"\",~]\n"),
    ];
    for (input, expected) in cases {
        let out = ash(&["ason"], ws.path(), input);
        assert_answer(&out, expected);
    }
}

#[test]
fn version_prints_the_package_version() {
    let ws = workspace();
    let out = ash(&["--version"], ws.path(), b"");
    assert_answer(&out, "ash 0.1.0\n");
}

#[test]
fn help_and_completions_are_answers() {
    let ws = workspace();
    let out = ash(&["--help"], ws.path(), b"");
    assert_eq!(out.status.code(), Some(0));
    let help = String::from_utf8_lossy(&out.stdout);
    for word in ["Usage: ash", "run", "rpc", "ason", "--completions"] {
        assert!(help.contains(word), "{word} missing from {help}");
    }
    for (shell, marker) in [
        ("bash", "complete -F _ash"),
        ("zsh", "#compdef ash"),
        ("fish", "complete -c ash"),
    ] {
        let out = ash(&["--completions", shell], ws.path(), b"");
        assert_eq!(out.status.code(), Some(0), "{shell}");
        let script = String::from_utf8_lossy(&out.stdout);
        assert!(script.contains(marker), "{shell}: {script}");
        assert!(script.contains("rpc"), "{shell} completes the subcommands");
    }
    // A completion request with a subcommand, or for an unknown shell, is a usage error.
    assert_bootstrap(
        &ash(&["--completions", "bash", "run"], ws.path(), b""),
        1,
        2,
    );
    assert_bootstrap(&ash(&["--completions", "tcsh"], ws.path(), b""), 1, 2);
}

#[test]
fn an_argument_that_is_not_utf8_is_a_usage_error() {
    use std::os::unix::ffi::OsStrExt;
    let ws = workspace();
    let out = Command::new(env!("CARGO_BIN_EXE_ash"))
        .arg(std::ffi::OsStr::from_bytes(b"r\xffn"))
        .current_dir(ws.path())
        .stdin(Stdio::null())
        .output()
        .expect("ash runs");
    assert_bootstrap(&out, 1, 2);
}

#[test]
fn references_do_not_outlive_the_process() {
    // A read retained in one `ash run` (non-UTF-8 selection) gets `@1`; the next process starts
    // over with an empty store and an empty path dictionary, so it answers identically.
    let ws = workspace();
    std::fs::write(ws.path().join("bin.dat"), b"\xff\x00\xfe").expect("write bin.dat");
    let input = b"t:1\ni:1\no:r\na{p,m,o,n}:\n[bin.dat],0,0,3\nu{tok,rec,ms}:\n256,8,1000\n";
    let h = blake3_hex(b"\xff\x00\xfe");
    let expected = format!(
        "t:3\ni:1\ns:0\np[1]{{i,v}}:\n1,bin.dat\nd[1]{{p,o,n,h,t,r}}:\n1,0,3,{h},~,@1\nz:10\nr:~\n"
    );
    assert_answer(&ash(&["run"], ws.path(), input), &expected);
    assert_answer(&ash(&["run"], ws.path(), input), &expected);
}

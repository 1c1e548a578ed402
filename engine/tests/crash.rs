//! Crash safety of the transaction journal with real processes: `ash run` executes a
//! transaction and SIGKILLs itself at the n-th cut point (the `crash-points` feature, enabled
//! for test builds by the crate's self dev-dependency, honours `ASH_CRASH_AT` and
//! `ASH_CRASH_RECOVERY_AT`); a fresh process then runs recovery, and the workspace must be
//! exactly the pre-state or the post-state. Also: concurrent processes serialise.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    reason = "test code: a failed unwrap is the test failing, with its location"
)]

#[path = "crash/foreign.rs"]
mod foreign;

use std::collections::BTreeMap;
use std::io::Write;
use std::os::unix::fs::PermissionsExt;
use std::os::unix::process::ExitStatusExt;
use std::path::Path;
use std::process::{Command, Output, Stdio};

type Tree = BTreeMap<String, (Vec<u8>, u32)>;

fn ash(ws: &Path, input: &str, env: &[(&str, u64)]) -> Output {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_ash"));
    cmd.arg("run")
        .current_dir(ws)
        .env_remove("ASH_CRASH_AT")
        .env_remove("ASH_CRASH_RECOVERY_AT")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    for (k, v) in env {
        cmd.env(k, v.to_string());
    }
    let mut child = cmd.spawn().expect("spawn ash");
    child
        .stdin
        .take()
        .expect("stdin")
        .write_all(input.as_bytes())
        .expect("write request");
    child.wait_with_output().expect("wait ash")
}

fn killed(out: &Output) -> bool {
    out.status.signal() == Some(9)
}

fn tree(root: &Path) -> Tree {
    let mut out = Tree::new();
    walk(root, root, &mut out);
    out
}

fn walk(root: &Path, dir: &Path, out: &mut Tree) {
    for entry in std::fs::read_dir(dir).expect("read_dir") {
        let path = entry.expect("entry").path();
        let rel = path
            .strip_prefix(root)
            .expect("below root")
            .to_string_lossy()
            .into_owned();
        if rel == ".ash" {
            continue;
        }
        let meta = std::fs::symlink_metadata(&path).expect("meta");
        if meta.is_dir() {
            out.insert(format!("{rel}/"), (Vec::new(), meta.permissions().mode()));
            walk(root, &path, out);
        } else {
            let bytes = std::fs::read(&path).expect("read");
            out.insert(rel, (bytes, meta.permissions().mode()));
        }
    }
}

fn hash(bytes: &[u8]) -> String {
    blake3::hash(bytes).to_hex().to_string()
}

fn request(op: char, a: &str) -> String {
    format!("t:1\ni:7\no:{op}\n{a}u{{tok,rec,ms}}:\n100000,10000,30000\n")
}

/// A mutation that runs recovery and then fails resolution without touching anything.
fn probe_request() -> String {
    request(
        'f',
        &format!("a[1]{{i,k,p,q,h,v}}:\n1,3,no-such-file,~,{},~\n", hash(b"")),
    )
}

struct Scenario {
    name: &'static str,
    setup: fn(&Path),
    request: fn() -> String,
}

fn fs_setup(root: &Path) {
    std::fs::create_dir(root.join("dir")).expect("mkdir");
    std::fs::write(root.join("dir/keep.txt"), b"keep this\n").expect("write");
    std::fs::write(root.join("m.txt"), b"move me\n").expect("write");
    std::fs::write(root.join("r.txt"), b"remove me\n").expect("write");
    std::fs::set_permissions(
        root.join("dir/keep.txt"),
        std::fs::Permissions::from_mode(0o640),
    )
    .expect("chmod");
}

fn fs_request() -> String {
    request(
        'f',
        &format!(
            "a[4]{{i,k,p,q,h,v}}:\n1,0,dir/new.txt,~,~,\"created\\n\"\n2,1,dir/keep.txt,copy.txt,{},~\n3,2,m.txt,dir/moved.txt,{},~\n4,3,r.txt,~,{},~\n",
            hash(b"keep this\n"),
            hash(b"move me\n"),
            hash(b"remove me\n")
        ),
    )
}

fn patch_setup(root: &Path) {
    std::fs::write(root.join("a.txt"), b"alpha\nbeta\n").expect("write");
    std::fs::write(root.join("b.sh"), b"echo one\n").expect("write");
    std::fs::set_permissions(root.join("b.sh"), std::fs::Permissions::from_mode(0o755))
        .expect("chmod");
}

fn patch_request() -> String {
    request(
        'p',
        &format!(
            "a{{p,h,i,o,n,v,f}}:\n[a.txt,b.sh],[{},{}],[0,1],[0,5],[5,3],[ALPHA,two],0\n",
            hash(b"alpha\nbeta\n"),
            hash(b"echo one\n")
        ),
    )
}

fn mixed_setup(root: &Path) {
    std::fs::create_dir(root.join("sub")).expect("mkdir");
    std::fs::write(root.join("sub/old.txt"), b"old\n").expect("write");
    std::fs::write(root.join("x.bin"), [0u8, 1, 2, 255]).expect("write");
}

fn mixed_request() -> String {
    request(
        'f',
        &format!(
            "a[3]{{i,k,p,q,h,v}}:\n1,3,sub/old.txt,~,{},~\n2,2,x.bin,sub/x.bin,{},~\n3,0,sub/old.txt.new,~,~,\"\"\n",
            hash(b"old\n"),
            hash(&[0u8, 1, 2, 255])
        ),
    )
}

const SCENARIOS: [Scenario; 3] = [
    Scenario {
        name: "fs create+copy+move+remove",
        setup: fs_setup,
        request: fs_request,
    },
    Scenario {
        name: "patch replace x2",
        setup: patch_setup,
        request: patch_request,
    },
    Scenario {
        name: "fs remove+move+create empty",
        setup: mixed_setup,
        request: mixed_request,
    },
];

fn fresh(s: &Scenario) -> tempfile::TempDir {
    let dir = tempfile::tempdir().expect("temp workspace");
    (s.setup)(dir.path());
    dir
}

/// The pre- and post-state of a scenario, from an uninterrupted run.
fn states(s: &Scenario) -> (Tree, Tree) {
    let ws = fresh(s);
    let pre = tree(ws.path());
    let out = ash(ws.path(), &(s.request)(), &[]);
    let text = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(text.contains("\ns:0\n"), "{}: {text}", s.name);
    let post = tree(ws.path());
    assert_ne!(pre, post);
    (pre, post)
}

/// Runs recovery in a fresh process and checks the outcome is all-or-nothing.
fn check_recovered(s: &Scenario, ws: &Path, pre: &Tree, post: &Tree, what: &str) {
    let out = ash(ws, &probe_request(), &[]);
    let text = String::from_utf8_lossy(&out.stdout).into_owned();
    assert_eq!(
        text, "t:3\ni:7\ns:4\ne{c,q,p,x,a}:\n201,1,2,~,~\nz:0\nr:~\n",
        "{}: {what}: recovery answer",
        s.name
    );
    let now = tree(ws);
    assert!(
        now == *pre || now == *post,
        "{}: {what}: workspace is neither pre- nor post-state:\n{now:#?}",
        s.name
    );
    for leftover in ["transaction", "transaction.new"] {
        assert!(
            !ws.join(".ash").join(leftover).exists(),
            "{}: {what}: {leftover}",
            s.name
        );
    }
}

#[test]
fn every_forward_and_recovery_cut_point_is_all_or_nothing() {
    let mut forward_total = 0;
    let mut recovery_total = 0;
    for s in &SCENARIOS {
        let (pre, post) = states(s);
        let mut k = 1;
        loop {
            let ws = fresh(s);
            let out = ash(ws.path(), &(s.request)(), &[("ASH_CRASH_AT", k)]);
            if !killed(&out) {
                assert_eq!(
                    tree(ws.path()),
                    post,
                    "{}: run past the last cut point",
                    s.name
                );
                break;
            }
            forward_total += 1;
            check_recovered(s, ws.path(), &pre, &post, &format!("forward cut {k}"));
            // Crash the recovery of the same cut at each of its own cut points.
            let mut j = 1;
            loop {
                let ws = fresh(s);
                assert!(killed(&ash(
                    ws.path(),
                    &(s.request)(),
                    &[("ASH_CRASH_AT", k)]
                )));
                let out = ash(ws.path(), &probe_request(), &[("ASH_CRASH_RECOVERY_AT", j)]);
                if !killed(&out) {
                    break;
                }
                recovery_total += 1;
                let what = format!("forward cut {k}, recovery cut {j}");
                check_recovered(s, ws.path(), &pre, &post, &what);
                j += 1;
                assert!(j < 100, "recovery never finishes");
            }
            k += 1;
            assert!(k < 200, "transaction never finishes");
        }
    }
    eprintln!("{forward_total} forward and {recovery_total} recovery cut points crashed");
    assert!(
        forward_total >= 30,
        "only {forward_total} forward cut points"
    );
    assert!(
        recovery_total >= 12,
        "only {recovery_total} recovery cut points"
    );
}

#[test]
fn concurrent_processes_serialise_without_lost_updates() {
    let ws = tempfile::tempdir().expect("temp workspace");
    let root = ws.path().to_path_buf();
    std::fs::write(root.join("log.txt"), b"").expect("write");
    let workers: Vec<_> = (0..2)
        .map(|w| {
            let root = root.clone();
            std::thread::spawn(move || {
                let mut done = 0;
                let mut conflicts = 0;
                while done < 8 {
                    let current = std::fs::read(root.join("log.txt")).expect("read");
                    let line = format!("worker {w} line {done}\\n");
                    let req = request(
                        'p',
                        &format!(
                            "a{{p,h,i,o,n,v,f}}:\n[log.txt],[{}],[0],[{}],[0],[\"{line}\"],0\n",
                            hash(&current),
                            current.len()
                        ),
                    );
                    let out = ash(&root, &req, &[]);
                    let text = String::from_utf8_lossy(&out.stdout).into_owned();
                    if text.contains("\ns:0\n") {
                        done += 1;
                    } else {
                        assert!(text.contains("501,1,4"), "unexpected answer {text}");
                        conflicts += 1;
                    }
                    // A distinct create per attempt exercises the journal concurrently too.
                    let create = request(
                        'f',
                        &format!("a[1]{{i,k,p,q,h,v}}:\n1,0,w{w}-{done}-{conflicts},~,~,x\n"),
                    );
                    let out = ash(&root, &create, &[]);
                    let text = String::from_utf8_lossy(&out.stdout).into_owned();
                    assert!(
                        text.contains("\ns:0\n") || text.contains("501,1,4"),
                        "{text}"
                    );
                }
            })
        })
        .collect();
    for w in workers {
        w.join().expect("worker");
    }
    let log = std::fs::read_to_string(root.join("log.txt")).expect("read log");
    for w in 0..2 {
        for n in 0..8 {
            assert!(
                log.contains(&format!("worker {w} line {n}\n")),
                "lost update:\n{log}"
            );
        }
    }
    assert_eq!(log.lines().count(), 16);
    assert!(!root.join(".ash/transaction").exists());
}

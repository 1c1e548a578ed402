//! Recovery when a session opens the workspace (issue 40, items 6 and 7), with real processes
//! and SIGKILL: `ash run` and `ash rpc` kill themselves at a transaction cut point (the
//! `crash-points` feature), and the next `ash` that merely opens the workspace, before it runs
//! anything but a read, must leave the tree whole (all old or all new) with no journal, and
//! reclaim the `.ash.new-*` directory a killed state-directory creator left behind, while
//! leaving alone every such name that may still be a creator at work.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    reason = "test code: a failed unwrap is the test failing, with its location"
)]

use std::io::{Read, Write};
use std::os::unix::process::ExitStatusExt;
use std::path::Path;
use std::process::{Command, Output, Stdio};

fn ash_run(ws: &Path, input: &str, env: &[(&str, &str)]) -> Output {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_ash"));
    cmd.arg("run")
        .current_dir(ws)
        .env_remove("ASH_CRASH_AT")
        .env_remove("ASH_CRASH_RECOVERY_AT")
        .env_remove("ASH_CRASH_STATE_DIR_AT")
        .envs(env.iter().copied())
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let mut child = cmd.spawn().expect("spawn ash");
    child
        .stdin
        .take()
        .expect("stdin")
        .write_all(input.as_bytes())
        .expect("write request");
    child.wait_with_output().expect("wait ash")
}

fn hash(bytes: &[u8]) -> String {
    blake3::hash(bytes).to_hex().to_string()
}

const A_OLD: &[u8] = b"alpha\nbeta\n";
const A_NEW: &[u8] = b"ALPHA\nbeta\n";
const B_OLD: &[u8] = b"echo one\n";
const B_NEW: &[u8] = b"echo two\n";

/// A patch of two files: forward cut point 6 falls right after the first file is replaced
/// (2 staged actions, the manifest, publication, the first temp link, the first rename).
fn two_file_patch() -> String {
    format!(
        "t:1\ni:7\no:p\na{{p,h,i,o,n,v,f}}:\n[a.txt,b.sh],[{},{}],[0,1],[0,5],[5,3],[ALPHA,two],0\nu{{tok,rec,ms}}:\n100000,10000,30000\n",
        hash(A_OLD),
        hash(B_OLD)
    )
}

/// Forward cut point after the first file of [`two_file_patch`] is replaced.
const AFTER_FIRST_REPLACE: &str = "6";
/// Forward cut point right after the `COMMITTED` marker of [`two_file_patch`] is durable.
const AFTER_COMMIT_MARKER: &str = "9";

fn read_both() -> String {
    "t:1\ni:3\no:r\na{p,m,o,n}:\n[a.txt,b.sh],0,0,64\nu{tok,rec,ms}:\n100000,100,30000\n".to_owned()
}

fn workspace() -> tempfile::TempDir {
    let ws = tempfile::tempdir().expect("temp workspace");
    std::fs::write(ws.path().join("a.txt"), A_OLD).expect("write");
    std::fs::write(ws.path().join("b.sh"), B_OLD).expect("write");
    ws
}

fn files(ws: &Path) -> (Vec<u8>, Vec<u8>) {
    (
        std::fs::read(ws.join("a.txt")).expect("a.txt"),
        std::fs::read(ws.join("b.sh")).expect("b.sh"),
    )
}

/// Kills `ash run` of the two-file patch at forward cut point `at` and checks where it stopped.
fn crash_patch(ws: &Path, at: &str) {
    let out = ash_run(ws, &two_file_patch(), &[("ASH_CRASH_AT", at)]);
    assert_eq!(
        out.status.signal(),
        Some(9),
        "cut point {at} was not reached"
    );
    assert!(ws.join(".ash/transaction").is_dir(), "the journal stays");
}

#[test]
fn a_read_after_a_crash_mid_apply_sees_the_whole_old_tree() {
    let ws = workspace();
    crash_patch(ws.path(), AFTER_FIRST_REPLACE);
    assert_eq!(
        files(ws.path()),
        (A_NEW.to_vec(), B_OLD.to_vec()),
        "the crash left the tree torn"
    );
    let out = ash_run(ws.path(), &read_both(), &[]);
    let text = String::from_utf8(out.stdout).expect("UTF-8 answer");
    assert!(text.contains("\ns:0\n"), "{text}");
    assert!(
        text.contains("\"alpha\\nbeta\\n\"") && text.contains("\"echo one\\n\""),
        "the read saw the torn tree: {text}"
    );
    assert_eq!(files(ws.path()), (A_OLD.to_vec(), B_OLD.to_vec()));
    assert!(!ws.path().join(".ash/transaction").exists());
}

#[test]
fn a_read_after_a_crash_past_the_commit_marker_sees_the_whole_new_tree() {
    let ws = workspace();
    crash_patch(ws.path(), AFTER_COMMIT_MARKER);
    let out = ash_run(ws.path(), &read_both(), &[]);
    let text = String::from_utf8(out.stdout).expect("UTF-8 answer");
    assert!(text.contains("\ns:0\n"), "{text}");
    assert_eq!(files(ws.path()), (A_NEW.to_vec(), B_NEW.to_vec()));
    assert!(!ws.path().join(".ash/transaction").exists());
}

fn frame(doc: &str) -> Vec<u8> {
    let mut out = (doc.len() as u32).to_be_bytes().to_vec();
    out.extend_from_slice(doc.as_bytes());
    out
}

#[test]
fn ash_rpc_recovers_when_its_session_opens_before_any_request() {
    let ws = workspace();
    crash_patch(ws.path(), AFTER_FIRST_REPLACE);
    let mut child = Command::new(env!("CARGO_BIN_EXE_ash"))
        .arg("rpc")
        .current_dir(ws.path())
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("spawn ash rpc");
    let mut stdin = child.stdin.take().expect("stdin");
    let mut stdout = child.stdout.take().expect("stdout");
    stdin
        .write_all(&frame(
            "t:0\ni:7\na{ap,al,ah,zp,zl,zh,frm,out,ops,cap,root,n}:\n1,0,0,1,0,0,1048576,65536,1023,15,.,nonce-7\n",
        ))
        .expect("handshake");
    let mut len = [0u8; 4];
    stdout.read_exact(&mut len).expect("handshake answer");
    let mut hello = vec![0u8; u32::from_be_bytes(len) as usize];
    stdout.read_exact(&mut hello).expect("handshake answer");
    assert!(hello.starts_with(b"t:0\ni:7\ns:0\n"));
    // No request was sent: opening the session alone recovered.
    assert_eq!(files(ws.path()), (A_OLD.to_vec(), B_OLD.to_vec()));
    assert!(!ws.path().join(".ash/transaction").exists());
    drop(stdin);
    assert!(child.wait().expect("wait ash rpc").success());
}

fn litter(ws: &Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(ws)
        .expect("read_dir")
        .map(|e| e.expect("entry").file_name().to_string_lossy().into_owned())
        .filter(|n| n.starts_with(".ash.new-"))
        .collect();
    names.sort();
    names
}

fn create_file() -> String {
    "t:1\ni:5\no:f\na[1]{i,k,p,q,h,v}:\n1,0,new.txt,~,~,created\nu{tok,rec,ms}:\n100000,10000,30000\n"
        .to_owned()
}

#[test]
fn a_creator_killed_while_making_the_state_directory_leaves_litter_the_next_start_reclaims() {
    let ws = workspace();
    let out = ash_run(
        ws.path(),
        &create_file(),
        &[("ASH_CRASH_STATE_DIR_AT", "1")],
    );
    assert_eq!(
        out.status.signal(),
        Some(9),
        "the cut point was not reached"
    );
    let left = litter(ws.path());
    assert_eq!(left.len(), 1, "{left:?}");
    assert!(!ws.path().join(".ash").exists());
    // A read only opens the workspace: it reclaims the litter and makes no `.ash`.
    let out = ash_run(ws.path(), &read_both(), &[]);
    assert!(String::from_utf8_lossy(&out.stdout).contains("\ns:0\n"));
    assert_eq!(litter(ws.path()), Vec::<String>::new());
    assert!(!ws.path().join(".ash").exists());
    // And the mutation now succeeds.
    let out = ash_run(ws.path(), &create_file(), &[]);
    assert!(String::from_utf8_lossy(&out.stdout).contains("\ns:0\n"));
    assert_eq!(
        std::fs::read(ws.path().join("new.txt")).expect("new"),
        b"created"
    );
    assert_eq!(litter(ws.path()), Vec::<String>::new());
}

/// A PID that belonged to a process that has exited and been reaped.
fn dead_pid() -> u32 {
    let mut child = Command::new("true").spawn().expect("spawn true");
    let pid = child.id();
    child.wait().expect("wait true");
    pid
}

#[test]
fn names_that_may_belong_to_a_creator_at_work_are_left_alone() {
    let ws = workspace();
    let root = ws.path();
    // A live creator: this test process.
    let live = format!(".ash.new-{}-1", std::process::id());
    std::fs::create_dir(root.join(&live)).expect("mkdir");
    // A creator whose PID is not visible here but who holds the directory's flock.
    let locked = format!(".ash.new-{}-2", dead_pid());
    std::fs::create_dir(root.join(&locked)).expect("mkdir");
    let held = std::fs::File::open(root.join(&locked)).expect("open dir");
    held.lock().expect("flock");
    // Not a directory, or a symlink to one: never ours.
    let file = format!(".ash.new-{}-3", dead_pid());
    std::fs::write(root.join(&file), b"x").expect("write");
    std::fs::create_dir(root.join("elsewhere")).expect("mkdir");
    let link = format!(".ash.new-{}-4", dead_pid());
    std::os::unix::fs::symlink("elsewhere", root.join(&link)).expect("symlink");
    // Near misses of the pattern.
    let odd = format!(".ash.new-0{}-5", dead_pid());
    std::fs::create_dir(root.join(&odd)).expect("mkdir");
    // And one that is litter.
    let dead = format!(".ash.new-{}-6", dead_pid());
    std::fs::create_dir(root.join(&dead)).expect("mkdir");
    std::fs::write(root.join(&dead).join("FORMAT"), b"ash-workspace-state-v1\n").expect("write");

    let out = ash_run(root, &read_both(), &[]);
    assert!(String::from_utf8_lossy(&out.stdout).contains("\ns:0\n"));
    let mut kept = vec![live, locked, file, link, odd];
    kept.sort();
    assert_eq!(litter(root), kept);
    assert!(root.join("elsewhere").is_dir());
    drop(held);
}

/// A patch of more files than one transaction journal holds (256) is refused as invalid
/// before anything is touched, as the reference implementation does: were it applied, a crash
/// mid-apply would leave a journal that recovery refuses to read, and the tree torn for good.
#[test]
fn a_patch_of_more_files_than_a_journal_holds_is_refused_before_anything_changes() {
    let ws = tempfile::tempdir().expect("temp workspace");
    let n = 257;
    let paths: Vec<String> = (0..n).map(|k| format!("f{k:04}.txt")).collect();
    for p in &paths {
        std::fs::write(ws.path().join(p), b"old\n").expect("write");
    }
    let list = |item: &dyn Fn(usize) -> String| -> String {
        (0..n).map(item).collect::<Vec<_>>().join(",")
    };
    let old = hash(b"old\n");
    let patch = format!(
        "t:1\ni:7\no:p\na{{p,h,i,o,n,v,f}}:\n[{}],[{}],[{}],[{}],[{}],[{}],0\nu{{tok,rec,ms}}:\n100000,10000,30000\n",
        paths.join(","),
        list(&|_| old.clone()),
        list(&|k| k.to_string()),
        list(&|_| "0".into()),
        list(&|_| "3".into()),
        list(&|_| "new".into()),
    );
    let out = ash_run(ws.path(), &patch, &[]);
    let text = String::from_utf8(out.stdout).expect("UTF-8 answer");
    assert!(text.contains("s:1\ne{c,q,p,x,a}:\n100,"), "{text}");
    for p in &paths {
        assert_eq!(std::fs::read(ws.path().join(p)).expect("read"), b"old\n");
    }
    assert!(!ws.path().join(".ash/transaction").exists());
}

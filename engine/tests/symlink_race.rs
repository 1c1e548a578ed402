//! A hostile local process swaps a workspace directory for a symlink to a directory outside the
//! workspace (`renameat2(RENAME_EXCHANGE)` in a tight loop) while every path-taking operation
//! runs against it: read, list, search, snapshot, patch, fs create/copy/move/remove, `>` and the
//! exec cwd. Whatever each answer says, nothing outside may be read (a secret marker and the
//! outside-only names never appear in any answer) or changed (the outside tree, inode numbers
//! included, is identical afterwards).
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    reason = "test code: a failed unwrap is the test failing, with its location"
)]

#[path = "common/mod.rs"]
mod common;
#[path = "common/swap.rs"]
mod swap;

use ash_engine::session::{Session, SessionConfig};
use common::{cell, hash, open_session, paths_cell, retain};
use std::collections::BTreeMap;
use std::os::unix::fs::MetadataExt;
use std::path::Path;
use swap::{start_swapper, stop_swapper};

const SECRET: &str = "SECRET-7f3a";
const ITERATIONS: usize = 250;

/// Path, kind, size, content digest and inode of every entry below `root`.
fn manifest(root: &Path) -> BTreeMap<String, (String, u64, String, u64)> {
    let mut out = BTreeMap::new();
    let mut stack = vec![root.to_path_buf()];
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(&dir).expect("read outside dir") {
            let entry = entry.expect("entry");
            let path = entry.path();
            let meta = std::fs::symlink_metadata(&path).expect("lstat");
            let rel = path
                .strip_prefix(root)
                .expect("below root")
                .to_string_lossy()
                .into_owned();
            let (kind, digest) = if meta.is_dir() {
                stack.push(path.clone());
                ("dir", String::new())
            } else if meta.file_type().is_symlink() {
                let target = std::fs::read_link(&path).expect("readlink");
                ("link", target.to_string_lossy().into_owned())
            } else {
                ("file", hash(&std::fs::read(&path).expect("read")))
            };
            out.insert(rel, (kind.to_owned(), meta.len(), digest, meta.ino()));
        }
    }
    out
}

fn req(id: u64, op: &str, a: &str) -> String {
    format!("t:1\ni:{id}\no:{op}\n{a}u{{tok,rec,ms}}:\n100000,10000,30000\n")
}

/// Every request of one round, each naming a path below the swapped directory `d`.
fn round(session: &mut Session, id: &mut u64, n: usize) -> Vec<String> {
    let same = hash(b"same\n");
    let victim = hash(b"victim\n");
    let alias = retain(session, b"materialized\n");
    let mut next = || {
        *id += 1;
        *id
    };
    vec![
        req(
            next(),
            "r",
            &format!("a{{p,m,o,n}}:\n{},0,0,100\n", paths_cell(&["d/f.txt"])),
        ),
        req(
            next(),
            "r",
            &format!("a{{p,m,o,n}}:\n{},0,0,100\n", paths_cell(&["d/sub/g.txt"])),
        ),
        req(
            next(),
            "l",
            &format!("a{{p,d,f}}:\n{},3,1\n", paths_cell(&["d"])),
        ),
        req(
            next(),
            "g",
            &format!("a{{q,p,f}}:\n{},{},4\n", cell("e"), paths_cell(&["d"])),
        ),
        req(
            next(),
            "s",
            &format!("a{{p,d,m,r,f}}:\n{},8,0,~,1\n", paths_cell(&["d"])),
        ),
        req(
            next(),
            "p",
            &format!(
                "a{{p,h,i,o,n,v,f}}:\n[{}],[{same}],[0],[0],[4],[same],0\n",
                cell("d/same.txt")
            ),
        ),
        req(
            next(),
            "f",
            &format!(
                "a[1]{{i,k,p,q,h,v}}:\n1,0,{},~,~,new\n",
                cell(&format!("d/new-{n}.txt"))
            ),
        ),
        req(
            next(),
            "f",
            &format!(
                "a[2]{{i,k,p,q,h,v}}:\n1,1,{},{},{same},~\n2,2,{},{},{same},~\n",
                cell("d/same.txt"),
                cell(&format!("d/copy-{n}.txt")),
                cell(&format!("d/copy-{n}.txt")),
                cell(&format!("d/sub/moved-{n}.txt")),
            ),
        ),
        req(
            next(),
            "f",
            &format!(
                "a[1]{{i,k,p,q,h,v}}:\n1,3,{},~,{victim},~\n",
                cell("d/victim.txt")
            ),
        ),
        req(
            next(),
            "f",
            &format!(
                "a[1]{{i,k,p,q,h,v}}:\n1,0,{},~,~,{}\n",
                cell("d/victim.txt"),
                cell("victim\n")
            ),
        ),
        format!(
            "t:1\ni:{}\no:>\na:[@{alias},{}]\nu{{tok,rec,ms}}:\n100000,10000,30000\n",
            next(),
            cell(&format!("d/sub/mat-{n}.txt"))
        ),
        req(
            next(),
            "x",
            &format!("a{{x,v,c,e,in,f}}:\ncat,[f.txt],{},[],~,0\n", cell("d")),
        ),
    ]
}

/// The same names on both sides: `same.txt` and `victim.txt` are identical, so a mutation
/// redirected outside would succeed there; `f.txt` and `sub/g.txt` carry `marker`.
fn populate(dir: &Path, marker: &str) {
    std::fs::create_dir_all(dir.join("sub")).expect("mkdir");
    std::fs::write(dir.join("f.txt"), format!("{marker}\n")).expect("write");
    std::fs::write(dir.join("sub/g.txt"), format!("{marker}\n")).expect("write");
    std::fs::write(dir.join("same.txt"), "same\n").expect("write");
    std::fs::write(dir.join("victim.txt"), "victim\n").expect("write");
}

#[test]
fn a_directory_swapped_for_an_outside_symlink_never_leaks_or_changes_anything_outside() {
    let tmp = tempfile::tempdir().expect("temp dir");
    let ws = tmp.path().join("ws");
    let outside = tmp.path().join("outside");
    populate(&ws.join("d"), "inside");
    populate(&outside, SECRET);
    std::fs::write(outside.join("outside_only.txt"), SECRET).expect("write");
    std::os::unix::fs::symlink("../outside", ws.join("swap")).expect("symlink");
    let before = manifest(&outside);
    let secret_digest = hash(format!("{SECRET}\n").as_bytes());

    let mut session = open_session(&ws, SessionConfig::run(), 2);
    let swapper = start_swapper(&ws.join("d"), &ws.join("swap"));
    let mut leaks = Vec::new();
    let mut inside_reads = 0;
    let mut id = 0;
    for n in 0..ITERATIONS {
        for request in round(&mut session, &mut id, n) {
            let doc = common::document(&request);
            let (response, text) = session.answer_document(&doc).expect("usable id");
            let mut seen = text.clone();
            // Retained values (reads cut to a reference, exec streams) count as answers too.
            for alias in [response.reference].into_iter().flatten() {
                if let Some(body) = session.store().get(alias) {
                    seen.push_str(&String::from_utf8_lossy(&body.read_all().expect("read")));
                }
            }
            inside_reads += usize::from(seen.contains("inside"));
            if seen.contains(SECRET)
                || seen.contains("outside_only")
                || seen.contains(&secret_digest)
            {
                leaks.push(format!("{request}=> {text}"));
            }
        }
    }
    stop_swapper(swapper);
    assert!(
        leaks.is_empty(),
        "{} answers leaked outside content: {:#?}",
        leaks.len(),
        &leaks[..leaks.len().min(3)]
    );
    assert_eq!(
        manifest(&outside),
        before,
        "nothing outside the workspace changed"
    );
    assert!(
        inside_reads > 0,
        "the race let no read through at all: the test tests nothing"
    );
}

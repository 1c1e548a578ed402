//! An embedder's [`PathFilter`] through [`Session`] on real temporary workspaces: walks (list,
//! search, snapshot) skip hidden entries and never enter hidden directories; every path a
//! request names (read, walk roots, exec program and cwd, patch, fs, `>`) is refused with
//! `s:3 300,0,3` when it or an ancestor is hidden, also through a symlink; a search-only rule
//! hides nothing from other operations; and without a filter nothing changes.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    reason = "test code: a failed unwrap is the test failing, with its location"
)]

#[path = "common/mod.rs"]
mod common;

use ash_engine::protocol::EntryKind;
use ash_engine::session::{FilterOp, PathFilter, Session, SessionConfig};
use common::{ask_checked, cell, error, hash, open_session, paths_cell, retain, tree};
use std::path::Path;
use std::sync::{Arc, Mutex};
use tempfile::TempDir;

/// Hides every path with a component in `names` from all operations, and the directory
/// `search_only` (with everything below it) from search walks only. Records every question.
#[derive(Debug, Default)]
struct Hide {
    names: Vec<&'static str>,
    search_only: Option<&'static str>,
    asked: Mutex<Vec<(String, Option<EntryKind>, FilterOp)>>,
}

impl PathFilter for Hide {
    fn hidden(&self, path: &Path, kind: Option<EntryKind>, op: FilterOp) -> bool {
        let shown = path.to_string_lossy().into_owned();
        self.asked
            .lock()
            .expect("not poisoned")
            .push((shown, kind, op));
        let by_name = path
            .components()
            .any(|c| self.names.iter().any(|n| c.as_os_str() == *n));
        let scoped =
            op == FilterOp::Search && self.search_only.is_some_and(|s| path == Path::new(s));
        by_name || scoped
    }
}

fn hide() -> Arc<Hide> {
    Arc::new(Hide {
        names: vec![".env", "secret"],
        search_only: Some("scope"),
        ..Hide::default()
    })
}

fn workspace() -> TempDir {
    let ws = tree(&[
        ("a.txt", b"needle\n"),
        (".env", b"needle=1\n"),
        ("sub/.env", b"needle=2\n"),
        ("sub/b.txt", b"needle\n"),
        ("secret/x.txt", b"needle\n"),
        ("secret/deep/y.txt", b"needle\n"),
        ("scope/c.txt", b"needle\n"),
        ("tool.sh", b"#!/bin/sh\necho hi\n"),
    ]);
    std::os::unix::fs::symlink(".env", ws.path().join("envlink")).expect("symlink");
    std::os::unix::fs::symlink("secret", ws.path().join("secretlink")).expect("symlink");
    ws
}

fn session(ws: &TempDir, filter: &Arc<Hide>) -> Session {
    let hidden: Arc<dyn PathFilter> = filter.clone();
    let config = SessionConfig {
        hidden: Some(hidden),
        ..SessionConfig::run()
    };
    open_session(ws.path(), config, 2)
}

/// The paths an answer introduces (a fresh session introduces every path it names).
fn ask_paths(s: &mut Session, request: &str) -> Vec<String> {
    let (response, text) = ask_checked(s, request);
    assert_eq!(
        response.status,
        ash_engine::protocol::Status::Success,
        "{text}"
    );
    response.paths.into_iter().map(|(_, p)| p).collect()
}

fn req(id: u64, op: &str, a: &str) -> String {
    format!("t:1\ni:{id}\no:{op}\n{a}u{{tok,rec,ms}}:\n100000,10000,30000\n")
}

fn list(paths: &[&str], depth: u64, flags: u64) -> String {
    req(
        1,
        "l",
        &format!("a{{p,d,f}}:\n{},{depth},{flags}\n", paths_cell(paths)),
    )
}

fn search(paths: &[&str], flags: u64) -> String {
    req(
        1,
        "g",
        &format!("a{{q,p,f}}:\nneedle,{},{flags}\n", paths_cell(paths)),
    )
}

fn snapshot(paths: &[&str], flags: u64) -> String {
    req(
        1,
        "s",
        &format!("a{{p,d,m,r,f}}:\n{},64,0,~,{flags}\n", paths_cell(paths)),
    )
}

fn read(path: &str) -> String {
    req(
        1,
        "r",
        &format!("a{{p,m,o,n}}:\n{},0,0,100\n", paths_cell(&[path])),
    )
}

fn exec(program: &str, cwd: &str) -> String {
    req(
        1,
        "x",
        &format!(
            "a{{x,v,c,e,in,f}}:\n{},[],{},[],~,0\n",
            cell(program),
            cell(cwd)
        ),
    )
}

fn denied() -> String {
    error(1, 3, 300, 0, 3)
}

#[test]
fn walks_skip_hidden_entries_and_never_enter_hidden_dirs() {
    let ws = workspace();
    let filter = hide();
    let mut s = session(&ws, &filter);
    let listed = ask_paths(&mut s, &list(&["."], 64, 1));
    assert_eq!(
        listed,
        [
            ".",
            "a.txt",
            "envlink",
            "scope",
            "scope/c.txt",
            "secretlink",
            "sub",
            "sub/b.txt",
            "tool.sh"
        ]
    );
    let asked = filter.asked.lock().expect("not poisoned").clone();
    assert!(
        asked.iter().all(|(p, _, _)| !p.starts_with("secret/")),
        "a hidden directory is not entered: {asked:?}"
    );
    assert!(
        asked
            .iter()
            .all(|(p, k, op)| *op == FilterOp::List && k.is_some() && p != "."),
        "walked entries carry their kind; the root is never asked: {asked:?}"
    );
    assert!(asked.contains(&("secret".into(), Some(EntryKind::Dir), FilterOp::List)));

    let mut s = session(&ws, &filter);
    let found = ask_paths(&mut s, &search(&["."], 4));
    assert_eq!(found, ["a.txt", "sub/b.txt"]);
    let mut s = session(&ws, &filter);
    let captured = ask_paths(&mut s, &snapshot(&["."], 1));
    assert_eq!(
        captured,
        [
            ".",
            "a.txt",
            "envlink",
            "scope",
            "scope/c.txt",
            "secretlink",
            "sub",
            "sub/b.txt",
            "tool.sh"
        ]
    );
}

#[test]
fn a_search_only_rule_hides_nothing_else() {
    let ws = workspace();
    let filter = hide();
    // Named directly, the search-only scope is searchable: the root is a named path.
    let mut s = session(&ws, &filter);
    assert_eq!(ask_paths(&mut s, &search(&["scope"], 0)), ["scope/c.txt"]);
    let mut s = session(&ws, &filter);
    assert_eq!(
        ask_paths(&mut s, &read("scope/c.txt")),
        ["scope/c.txt"],
        "read is not search"
    );
}

#[test]
fn named_hidden_paths_are_refused_like_reserved_ones() {
    let ws = workspace();
    let filter = hide();
    let mut s = session(&ws, &filter);
    let mut id = 0;
    let mut refused = |request: String, what: &str| {
        id += 1;
        let request = request.replacen("i:1\n", &format!("i:{id}\n"), 1);
        let (_, text) = ask_checked(&mut s, &request);
        assert_eq!(text, error(id, 3, 300, 0, 3), "{what}: {request}");
    };
    for path in [
        ".env",
        "sub/.env",
        "secret/x.txt",
        "secret",
        "nope/.env",
        "secret/missing",
    ] {
        refused(read(path), path);
    }
    refused(read("envlink"), "a symlink to a hidden file");
    refused(
        read("secretlink/x.txt"),
        "a path through a symlinked hidden directory",
    );
    refused(list(&["secret"], 1, 0), "list root");
    refused(list(&["secretlink"], 1, 0), "symlinked list root");
    refused(search(&["a.txt", "secret/deep"], 0), "search root");
    refused(snapshot(&["secret"], 0), "snapshot root");
    refused(exec("true", "secret"), "exec cwd");
    refused(exec("secret/tool.sh", "."), "exec program");
    let digest = hash(b"needle=1\n");
    refused(
        req(
            1,
            "p",
            &format!(
                "a{{p,h,i,o,n,v,f}}:\n[{}],[{digest}],[0],[0],[0],[x],0\n",
                cell(".env")
            ),
        ),
        "patch",
    );
    refused(
        req(1, "f", "a[1]{i,k,p,q,h,v}:\n1,0,secret/new.txt,~,~,hi\n"),
        "fs create",
    );
    let a = hash(b"needle\n");
    refused(
        req(
            1,
            "f",
            &format!(
                "a[1]{{i,k,p,q,h,v}}:\n1,1,a.txt,{},{a},~\n",
                cell("sub/.env")
            ),
        ),
        "fs copy destination",
    );
    refused(
        req(
            1,
            "f",
            &format!("a[1]{{i,k,p,q,h,v}}:\n1,3,{},~,{digest},~\n", cell(".env")),
        ),
        "fs remove",
    );
    let alias = retain(&mut s, b"content");
    id += 1;
    let (_, text) = ask_checked(
        &mut s,
        &format!(
            "t:1\ni:{id}\no:>\na:[@{alias},{}]\nu{{tok,rec,ms}}:\n100000,10000,30000\n",
            cell(".env")
        ),
    );
    assert_eq!(text, error(id, 3, 300, 0, 3), "materialize");
    assert_eq!(
        std::fs::read(ws.path().join(".env")).expect(".env"),
        b"needle=1\n",
        "nothing was changed"
    );
    assert!(!ws.path().join("secret/new.txt").exists());
    assert_eq!(
        std::fs::read(ws.path().join("sub/.env")).expect("sub/.env"),
        b"needle=2\n"
    );
    let asked = filter.asked.lock().expect("not poisoned").clone();
    assert!(
        asked
            .iter()
            .filter(|(_, _, op)| *op == FilterOp::Named)
            .all(|(_, k, _)| k.is_none()),
        "named paths are checked lexically: {asked:?}"
    );
}

#[test]
fn without_a_filter_nothing_is_hidden() {
    let ws = workspace();
    let mut s = open_session(ws.path(), SessionConfig::run(), 2);
    assert_eq!(ask_paths(&mut s, &read(".env")), [".env"]);
    let mut s = open_session(ws.path(), SessionConfig::run(), 2);
    let found = ask_paths(&mut s, &search(&["."], 4));
    assert_eq!(
        found,
        [
            ".env",
            "a.txt",
            "scope/c.txt",
            "secret/deep/y.txt",
            "secret/x.txt",
            "sub/.env",
            "sub/b.txt"
        ]
    );
}

#[test]
fn hidden_paths_do_not_reveal_whether_they_exist() {
    let ws = workspace();
    let filter = hide();
    let mut s = session(&ws, &filter);
    let (_, present) = ask_checked(&mut s, &read(".env"));
    let (_, absent) = ask_checked(&mut s, &read("nope/secret"));
    assert_eq!(present, denied());
    assert_eq!(absent, denied());
}

/// Hides nothing by name, but every regular file with more than one hard link.
#[derive(Debug)]
struct HideLinked;

impl PathFilter for HideLinked {
    fn hidden(&self, _: &Path, _: Option<EntryKind>, _: FilterOp) -> bool {
        false
    }

    fn hides_linked_files(&self) -> bool {
        true
    }
}

#[test]
fn a_filter_can_hide_every_file_with_several_hard_links() {
    let ws = tree(&[("secret.txt", b"needle=1\n"), ("a.txt", b"needle\n")]);
    std::fs::hard_link(ws.path().join("secret.txt"), ws.path().join("alias.txt")).expect("link");
    let hidden: Arc<dyn PathFilter> = Arc::new(HideLinked);
    let config = SessionConfig {
        hidden: Some(hidden),
        ..SessionConfig::run()
    };
    let mut s = open_session(ws.path(), config, 2);
    let (_, text) = ask_checked(&mut s, &read("alias.txt"));
    assert_eq!(text, denied(), "read");
    assert_eq!(ask_paths(&mut s, &search(&["."], 0)), ["a.txt"]);
    let digest = hash(b"needle=1\n");
    let (_, text) = ask_checked(
        &mut s,
        &req(
            1,
            "p",
            &format!("a{{p,h,i,o,n,v,f}}:\n[alias.txt],[{digest}],[0],[0],[0],[x],0\n"),
        ),
    );
    assert_eq!(text, denied(), "patch");
    assert_eq!(
        std::fs::read(ws.path().join("secret.txt")).expect("read back"),
        b"needle=1\n"
    );
}

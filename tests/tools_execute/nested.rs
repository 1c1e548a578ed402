//! Nested AGENTS.md delivery (docs/contract/agent-behaviour.md §3): prepended once to the first tool output touching its
//! directory, with the instruction token; search skips undelivered scopes.

use super::{Harness, answer_paths, joined, open, policy, write};
use ansa::home::AnsaHome;
use ansa::instructions::FileExclusion;
use ash_engine::cancel::CancelToken;
use std::path::{Path, PathBuf};

const SEARCH_ALL: &str = r#"{"query":"needle","paths":["."],"regex":false,"case_insensitive":false,"include_hidden":false}"#;

fn read(path: &str) -> String {
    format!(r#"{{"paths":[{path:?}],"mode":"lines","offset":1,"length":5}}"#)
}

fn canonical(h: &Harness, rel: &str) -> PathBuf {
    std::fs::canonicalize(h.dir.path().join(rel)).expect("canonical")
}

/// The text before the ASON answer.
fn prefix(text: &str) -> &str {
    &text[..text.find("t:3\n").expect("an ASON answer")]
}

fn block(token: &str, scope: &str, text: &str) -> String {
    format!("⟦instructions token={token} scope={scope}⟧\n{text}⟦end instructions⟧\n")
}

fn tree() -> Harness {
    Harness::new(&[
        ("AGENTS.md", "Top rules.\n"),
        ("top.txt", "needle\n"),
        ("sub/AGENTS.md", "Use tabs in sub.\n"),
        ("sub/a.txt", "needle a\n"),
        ("sub/b.txt", "needle b\n"),
        ("sub/deep/AGENTS.md", "Deep rules."),
        ("sub/deep/c.txt", "needle c\n"),
    ])
}

#[test]
fn delivered_exactly_once_with_the_first_read_in_its_directory() {
    let mut h = tree();
    let before = h.tools.instruction_token().to_owned();
    let first = h.output("read", &read("sub/a.txt")).expect("answer");
    let token = h.tools.instruction_token().to_owned();
    assert_ne!(token, before, "a delivery changes the token");
    assert_eq!(token.len(), 12);
    assert!(token.bytes().all(|b| b.is_ascii_hexdigit()));
    assert_eq!(
        prefix(&joined(&first)),
        block(&token, "sub", "Use tabs in sub.\n")
    );
    assert!(
        joined(&first).ends_with("\"needle a\\n\",~\nz:0\nr:~\n"),
        "{}",
        joined(&first)
    );
    assert_eq!(first.delivered, [canonical(&h, "sub")]);

    let second = h.output("read", &read("sub/b.txt")).expect("answer");
    assert!(joined(&second).starts_with("t:3\n"), "{}", joined(&second));
    assert!(second.delivered.is_empty());
    assert_eq!(
        h.tools.instruction_token(),
        token,
        "nothing new, same token"
    );

    // The cwd's own AGENTS.md is initial, never delivered by the tools.
    let top = h.output("read", &read("top.txt")).expect("answer");
    assert!(joined(&top).starts_with("t:3\n") && top.delivered.is_empty());
}

#[test]
fn a_deeper_access_delivers_every_scope_on_the_way_outermost_first() {
    let mut h = tree();
    let out = h.output("read", &read("sub/deep/c.txt")).expect("answer");
    let token = h.tools.instruction_token().to_owned();
    assert_eq!(
        prefix(&joined(&out)),
        block(&token, "sub", "Use tabs in sub.\n") + &block(&token, "sub/deep", "Deep rules.\n")
    );
    assert_eq!(
        out.delivered,
        [canonical(&h, "sub"), canonical(&h, "sub/deep")]
    );
}

#[test]
fn search_skips_undelivered_scopes_until_they_are_accessed() {
    let mut h = tree();
    let out = h.output("search", SEARCH_ALL).expect("answer");
    assert!(
        out.delivered.is_empty(),
        "a search from the cwd delivers nothing"
    );
    assert_eq!(answer_paths(&joined(&out)), ["top.txt"]);

    h.ok(
        "list",
        r#"{"paths":["sub"],"depth":0,"include_hidden":false,"kind":"all"}"#,
    );
    let out = h.output("search", SEARCH_ALL).expect("answer");
    assert_eq!(
        answer_paths(&joined(&out)),
        ["sub/a.txt", "sub/b.txt"],
        "`sub` was accessed, `sub/deep` was not"
    );

    let out = h
        .output(
            "search",
            r#"{"query":"needle","paths":["sub/deep"],"regex":false,"case_insensitive":false,"include_hidden":false}"#,
        )
        .expect("answer");
    assert_eq!(out.delivered, [canonical(&h, "sub/deep")]);
    assert!(prefix(&joined(&out)).contains("scope=sub/deep⟧\nDeep rules.\n"));
    assert_eq!(answer_paths(&joined(&out)), ["sub/deep/c.txt"]);
}

#[test]
fn exec_cwd_and_file_changes_deliver_too() {
    let mut h = tree();
    let out = h
        .output(
            "exec",
            r#"{"program":"true","args":[],"cwd":"sub","env":[],"stdin":null,"timeout_ms":null, "outside_sandbox": null}"#,
        )
        .expect("answer");
    assert_eq!(out.delivered, [canonical(&h, "sub")]);
    let out = h
        .output(
            "files",
            r#"{"actions":[{"kind":"create","path":"sub/deep/new.txt","content":"x","to":null}]}"#,
        )
        .expect("answer");
    assert_eq!(out.delivered, [canonical(&h, "sub/deep")]);
    assert!(
        joined(&out).contains("⟦end instructions⟧\nt:3\n"),
        "{}",
        joined(&out)
    );
}

#[test]
fn a_symlinked_nested_agents_md_is_reported_as_skipped_not_loaded() {
    let mut h = Harness::new(&[("real.md", "Evil rules.\n"), ("linked/x.txt", "x\n")]);
    std::os::unix::fs::symlink("../real.md", h.dir.path().join("linked/AGENTS.md"))
        .expect("symlink");
    let before = h.tools.instruction_token().to_owned();
    let out = h.output("read", &read("linked/x.txt")).expect("answer");
    let text = joined(&out);
    let shown = prefix(&text);
    assert!(
        shown.starts_with("⟦instructions skipped scope=linked⟧ AGENTS.md was not loaded: "),
        "{shown}"
    );
    assert!(shown.contains("symbolic link"), "{shown}");
    assert!(!shown.contains("Evil"), "{shown}");
    assert_eq!(shown.lines().count(), 1);
    assert_eq!(out.delivered, [canonical(&h, "linked")]);
    assert_eq!(h.tools.instruction_token(), before, "nothing was loaded");
    let again = h.output("read", &read("linked/x.txt")).expect("answer");
    assert!(
        joined(&again).starts_with("t:3\n"),
        "reported once: {}",
        joined(&again)
    );
}

#[test]
fn a_refused_call_delivers_nothing() {
    let mut h = tree();
    let err = h.call(
        "edit",
        r#"{"files":[{"path":"sub/a.txt","edits":[{"old":"absent","new":"pin"}]}]}"#,
    );
    assert!(err.is_err(), "old text not found");
    let out = h.output("read", &read("sub/a.txt")).expect("answer");
    assert_eq!(out.delivered, [canonical(&h, "sub")]);
}

#[test]
fn a_reopened_session_keeps_its_deliveries_and_its_token() {
    let mut h = tree();
    let out = h.output("read", &read("sub/deep/c.txt")).expect("answer");
    let token = h.tools.instruction_token().to_owned();

    let home = AnsaHome::at(h.home.path().join("ansa"));
    let exclusion =
        FileExclusion::new(&home, Some(&h.user_home()), h.dir.path(), &[]).expect("exclusion");
    let mut reopened = open(h.dir.path(), policy(), exclusion);
    assert_ne!(reopened.instruction_token(), token);
    reopened.restore_delivered(out.delivered.clone());
    assert_eq!(reopened.instruction_token(), token);
    let args = h.args("read", &read("sub/deep/c.txt"));
    let again = reopened
        .execute(&args, &CancelToken::new())
        .expect("answer");
    assert!(again.delivered.is_empty() && joined(&again).starts_with("t:3\n"));

    write(h.dir.path(), "sub/AGENTS.md", "Changed.\n");
    let exclusion = FileExclusion::new(&home, None, Path::new(h.dir.path()), &[]).expect("x");
    let mut changed = open(h.dir.path(), policy(), exclusion);
    changed.restore_delivered(out.delivered);
    assert_ne!(
        changed.instruction_token(),
        token,
        "the token is rebuilt from the files as they are now"
    );
}

//! edit (against the read ledger) and files.

use super::{Harness, hash};
use ansa::tools::{EditError, ToolExecError};

const READ_ALL: &str = r#"{"paths":["a.rs"],"mode":"lines","offset":1,"length":100}"#;

#[test]
fn edit_after_read_patches_the_file() {
    let mut h = Harness::new(&[("a.rs", "fn a() {}\nfn b() {}\n")]);
    h.ok("read", READ_ALL);
    let out = h.ok(
        "edit",
        r#"{"files":[{"path":"a.rs","edits":[{"old":"fn b","new":"fn c"}]}]}"#,
    );
    assert_eq!(h.file("a.rs"), "fn a() {}\nfn c() {}\n");
    assert_eq!(
        out,
        format!(
            "t:3\ni:3\ns:0\nd[1]{{p,s,h}}:\n1,0,{}\nz:0\nr:~\n",
            hash("fn a() {}\nfn c() {}\n")
        )
    );
    // The committed digest is what the model now knows: a second edit needs no re-read.
    h.ok(
        "edit",
        r#"{"files":[{"path":"a.rs","edits":[{"old":"fn a","new":"fn z"}]}]}"#,
    );
    assert_eq!(h.file("a.rs"), "fn z() {}\nfn c() {}\n");
}

#[test]
fn partial_read_is_enough() {
    let mut h = Harness::new(&[("a.rs", "one\ntwo\nthree\n")]);
    h.ok(
        "read",
        r#"{"paths":["a.rs"],"mode":"lines","offset":3,"length":1}"#,
    );
    h.ok(
        "edit",
        r#"{"files":[{"path":"a.rs","edits":[{"old":"three","new":"3"}]}]}"#,
    );
    assert_eq!(h.file("a.rs"), "one\ntwo\n3\n");
}

#[test]
fn stale_read_conflicts_and_leaves_the_file() {
    let mut h = Harness::new(&[("a.rs", "x = 1\n")]);
    h.ok("read", READ_ALL);
    std::fs::write(h.dir.path().join("a.rs"), "x = 1\ny = 2\n").expect("write");
    let out = h.ok(
        "edit",
        r#"{"files":[{"path":"a.rs","edits":[{"old":"x = 1","new":"x = 9"}]}]}"#,
    );
    // 501 with the observed digest; the preimage was the digest of the read.
    assert_eq!(
        out,
        format!(
            "t:3\ni:3\ns:8\nd[1]{{p,s,h}}:\n1,1,{}\ne{{c,q,p,x,a}}:\n501,1,4,~,~\nz:0\nr:~\n",
            hash("x = 1\ny = 2\n")
        )
    );
    assert_eq!(h.file("a.rs"), "x = 1\ny = 2\n");
}

#[test]
fn stale_read_conflicts_even_when_old_no_longer_matches() {
    let mut h = Harness::new(&[("a.rs", "x = 1\n")]);
    h.ok("read", READ_ALL);
    std::fs::write(h.dir.path().join("a.rs"), "rewritten\n").expect("write");
    let out = h.ok(
        "edit",
        r#"{"files":[{"path":"a.rs","edits":[{"old":"x = 1","new":"x = 9"}]}]}"#,
    );
    assert!(out.contains("\ns:8\n") && out.contains("\n501,"), "{out}");
    assert_eq!(h.file("a.rs"), "rewritten\n");
}

#[test]
fn a_file_never_read_is_edited_as_it_is_now_when_old_matches_exactly() {
    let mut h = Harness::new(&[("a.rs", "x\n"), ("b.rs", "fn old_name() {}\n")]);
    let err = h
        .call(
            "edit",
            r#"{"files":[{"path":"a.rs","edits":[{"old":"nope","new":"y"}]}]}"#,
        )
        .unwrap_err();
    assert!(
        matches!(&err, ToolExecError::Edit { path, source: EditError::NotFound { index: 0 } } if path == "a.rs"),
        "{err:?}"
    );
    assert_eq!(h.file("a.rs"), "x\n");
    // Several files in one call: one atomic patch, answered with the list of what changed.
    let out = h.ok(
        "edit",
        r#"{"files":[{"path":"b.rs","edits":[{"old":"old_name","new":"new_name"}]},{"path":"a.rs","edits":[{"old":"x","new":"y"}]}]}"#,
    );
    assert!(out.contains("\ns:0\n"), "{out}");
    assert_eq!(
        (h.file("a.rs"), h.file("b.rs")),
        ("y\n".into(), "fn new_name() {}\n".into())
    );
}

#[test]
fn one_bad_file_leaves_every_file_of_the_edit_unchanged() {
    let mut h = Harness::new(&[("a.rs", "x\n"), ("b.rs", "y\n")]);
    let err = h
        .call(
            "edit",
            r#"{"files":[{"path":"a.rs","edits":[{"old":"x","new":"z"}]},{"path":"b.rs","edits":[{"old":"missing","new":"w"}]}]}"#,
        )
        .unwrap_err();
    assert!(
        err.to_string()
            .contains("in `b.rs`, edits[0].old was not found"),
        "{err}"
    );
    assert_eq!(
        (h.file("a.rs"), h.file("b.rs")),
        ("x\n".into(), "y\n".into())
    );
    // A stale second file conflicts for the whole patch: the first is not written either.
    h.ok(
        "read",
        r#"{"paths":["a.rs","b.rs"],"mode":"lines","offset":1,"length":5}"#,
    );
    std::fs::write(h.dir.path().join("b.rs"), "y changed\n").unwrap();
    let view = h.view(
        "edit",
        r#"{"files":[{"path":"a.rs","edits":[{"old":"x","new":"z"}]},{"path":"b.rs","edits":[{"old":"y","new":"w"}]}]}"#,
    );
    assert!(view.starts_with("s:conflict\n"), "{view}");
    assert!(
        view.contains("next:\"The file changed since you last read it"),
        "{view}"
    );
    assert_eq!(
        (h.file("a.rs"), h.file("b.rs")),
        ("x\n".into(), "y changed\n".into())
    );
}

#[test]
fn ambiguous_old_is_a_tool_error() {
    let mut h = Harness::new(&[("a.rs", "x = 1\nx = 1\n")]);
    h.ok("read", READ_ALL);
    let err = h
        .call(
            "edit",
            r#"{"files":[{"path":"a.rs","edits":[{"old":"x = 1","new":"x = 2"}]}]}"#,
        )
        .unwrap_err();
    assert_eq!(
        err,
        ToolExecError::Edit {
            path: "a.rs".into(),
            source: EditError::Ambiguous {
                index: 0,
                count: 2,
                lines: vec![1, 2]
            }
        }
    );
    assert_eq!(h.file("a.rs"), "x = 1\nx = 1\n");
}

#[test]
fn files_create_copy_move_remove() {
    let mut h = Harness::new(&[("old.txt", "keep"), ("gone.txt", "bye")]);
    let out = h.ok(
        "files",
        r#"{"actions":[
            {"kind":"create","path":"new.txt","to":null,"content":"hi"},
            {"kind":"copy","path":"old.txt","to":"copy.txt","content":null},
            {"kind":"remove","path":"gone.txt","to":null,"content":null}]}"#,
    );
    assert_eq!(
        out,
        format!(
            "t:3\ni:3\ns:0\np[4]{{i,v}}:\n1,new.txt\n2,old.txt\n3,copy.txt\n4,gone.txt\nd[3]{{i,k,p,q,s,h}}:\n1,0,1,~,0,{}\n2,1,2,3,0,{}\n3,3,4,~,0,{}\nz:0\nr:~\n",
            hash("hi"),
            hash("keep"),
            hash("bye")
        )
    );
    assert_eq!(h.file("new.txt"), "hi");
    assert_eq!(h.file("copy.txt"), "keep");
    assert!(!h.dir.path().join("gone.txt").exists());
    h.ok(
        "files",
        r#"{"actions":[{"kind":"move","path":"copy.txt","to":"moved.txt","content":null}]}"#,
    );
    assert_eq!(h.file("moved.txt"), "keep");
}

#[test]
fn files_never_overwrite() {
    let mut h = Harness::new(&[("a.txt", "a")]);
    let out = h.ok(
        "files",
        r#"{"actions":[{"kind":"create","path":"a.txt","to":null,"content":"b"}]}"#,
    );
    assert!(out.contains("\ns:"), "{out}");
    assert_eq!(h.file("a.txt"), "a");
}

#[test]
fn files_remove_of_a_file_changed_since_read_conflicts() {
    let mut h = Harness::new(&[("a.txt", "v1")]);
    h.ok(
        "read",
        r#"{"paths":["a.txt"],"mode":"bytes","offset":0,"length":10}"#,
    );
    std::fs::write(h.dir.path().join("a.txt"), "v2").expect("write");
    let out = h.ok(
        "files",
        r#"{"actions":[{"kind":"remove","path":"a.txt","to":null,"content":null}]}"#,
    );
    assert!(out.contains("\ns:8\n"), "{out}");
    assert_eq!(h.file("a.txt"), "v2");
}

#[test]
fn editing_a_missing_file_says_what_to_do() {
    let mut h = Harness::new(&[]);
    let err = h
        .call(
            "edit",
            r#"{"files":[{"path":"nope.rs","edits":[{"old":"x","new":"y"}]}]}"#,
        )
        .unwrap_err();
    let text = err.to_string();
    assert!(
        text.contains("`nope.rs` could not be read (error 201: The path does not exist: check its spelling with `list`"),
        "{text}"
    );
}

#[test]
fn writes_inside_git_are_refused_in_full_access_unless_the_config_allows_them() {
    let config = "[core]\n\trepositoryformatversion = 0\n";
    let files = [
        (".git/config", config),
        ("hook.sh", "#!/bin/sh\ntouch PWNED\n"),
    ];
    let mut h = Harness::new(&files);
    h.ok(
        "read",
        r#"{"paths":[".git/config"],"mode":"lines","offset":1,"length":10}"#,
    );
    let fsmonitor = r#"{"files":[{"path":".git/config","edits":[{"old":"[core]\n","new":"[core]\n\tfsmonitor = touch PWNED\n"}]}]}"#;
    let err = h.call("edit", fsmonitor).unwrap_err();
    assert!(matches!(err, ToolExecError::GitInternals { .. }), "{err}");
    let text = err.to_string();
    assert!(
        text.contains("`.git/config`") && text.contains("allow_git_writes"),
        "{text}"
    );
    assert_eq!(h.file(".git/config"), config);
    for actions in [
        r#"[{"kind":"create","path":".git/hooks/pre-commit","to":null,"content":"touch PWNED"}]"#,
        r#"[{"kind":"copy","path":"hook.sh","to":"sub/.git/hooks/post-checkout","content":null}]"#,
        r#"[{"kind":"remove","path":".git/config","to":null,"content":null}]"#,
    ] {
        let err = h
            .call("files", &format!(r#"{{"actions":{actions}}}"#))
            .unwrap_err();
        assert!(matches!(err, ToolExecError::GitInternals { .. }), "{err}");
    }
    assert!(!h.dir.path().join(".git/hooks").exists());
    assert!(!h.dir.path().join("sub").exists());
    assert_eq!(h.file(".git/config"), config);
    // Reading out of .git, and names that only look alike, are not protected.
    h.ok(
        "files",
        r#"{"actions":[{"kind":"copy","path":".git/config","to":"config.bak","content":null},
            {"kind":"create","path":".gitignore","to":null,"content":"target\n"}]}"#,
    );

    let mut allowed = Harness::with(
        ansa::tools::ToolPolicy {
            allow_git_writes: true,
            ..super::policy()
        },
        &files,
    );
    allowed.ok(
        "read",
        r#"{"paths":[".git/config"],"mode":"lines","offset":1,"length":10}"#,
    );
    allowed.ok("edit", fsmonitor);
    assert!(allowed.file(".git/config").contains("fsmonitor"));
}

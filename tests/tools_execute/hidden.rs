//! Files the tools never expose (docs/contract/agent-behaviour.md §3): hidden from list, search and snapshot, refused by
//! name before any engine call, and refused by the engine when reached through a symlink.

use super::{Harness, answer_paths, policy};
use ansa::instructions::ExclusionReason;
use ansa::tools::ToolExecError;

const LIST_ALL: &str = r#"{"paths":["."],"depth":8,"include_hidden":true,"kind":"all"}"#;
const SEARCH_ALL: &str = r#"{"query":"needle","paths":["."],"regex":false,"case_insensitive":false,"include_hidden":true}"#;
const SNAPSHOT_ALL: &str = r#"{"paths":["."],"depth":8,"include_hidden":true,"baseline":null}"#;

fn read(path: &str) -> String {
    format!(r#"{{"paths":[{path:?}],"mode":"lines","offset":1,"length":5}}"#)
}

fn edit(path: &str) -> String {
    format!(r#"{{"files":[{{"path":{path:?},"edits":[{{"old":"needle","new":"pin"}}]}}]}}"#)
}

/// Asserts that `tool` refuses `json` because of `path`, naming `reason` to the model.
fn refused(h: &mut Harness, tool: &'static str, json: &str, path: &str, reason: ExclusionReason) {
    let err = h.call(tool, json).expect_err("refused");
    let text = err.to_string();
    assert!(text.contains(&reason.to_string()), "{text}");
    assert!(text.contains("Nothing was executed"), "{text}");
    assert_eq!(
        err,
        ToolExecError::Excluded {
            tool,
            path: path.to_owned(),
            reason,
        }
    );
}

#[test]
fn dotenv_files_are_hidden_and_refused_but_templates_are_not() {
    let files = [
        (".env", "needle=1\n"),
        (".env.local", "needle=2\n"),
        (".env.example", "needle=\n"),
        ("sub/.env.local", "needle=3\n"),
        ("a.txt", "needle\n"),
    ];
    // A fresh session's first answer introduces every path it names.
    let mut h = Harness::new(&files);
    assert_eq!(
        answer_paths(&h.ok("search", SEARCH_ALL)),
        [".env.example", "a.txt"]
    );
    let mut h = Harness::new(&files);
    assert_eq!(
        answer_paths(&h.ok("snapshot", SNAPSHOT_ALL)),
        [".", ".env.example", "a.txt", "sub"]
    );
    let mut h = Harness::new(&files);
    assert_eq!(
        answer_paths(&h.ok("list", LIST_ALL)),
        [".", ".env.example", "a.txt", "sub"]
    );

    for path in [".env", ".env.local", "sub/.env.local"] {
        refused(&mut h, "read", &read(path), path, ExclusionReason::Dotenv);
        refused(&mut h, "edit", &edit(path), path, ExclusionReason::Dotenv);
    }
    refused(
        &mut h,
        "files",
        r#"{"actions":[{"kind":"copy","path":".env.example","to":".env.prod","content":null}]}"#,
        ".env.prod",
        ExclusionReason::Dotenv,
    );
    refused(
        &mut h,
        "files",
        r#"{"actions":[{"kind":"create","path":"sub/.env","content":"x","to":null}]}"#,
        "sub/.env",
        ExclusionReason::Dotenv,
    );
    assert!(!h.dir.path().join("sub/.env").exists());
    assert!(!h.dir.path().join(".env.prod").exists());
    let template = h.ok("read", &read(".env.example"));
    assert!(template.contains("\"needle=\\n\""), "{template}");
}

#[test]
fn a_symlink_to_a_hidden_file_is_refused_by_the_engine() {
    let mut h = Harness::new(&[(".env", "needle=1\n")]);
    std::os::unix::fs::symlink(".env", h.dir.path().join("alias")).expect("symlink");
    let out = h.ok("read", &read("alias"));
    assert_eq!(
        out, "t:3\ni:1\ns:3\ne{c,q,p,x,a}:\n300,0,3,~,~\nz:0\nr:~\n",
        "the name is innocent, the target is not"
    );
}

#[test]
fn credential_stores_are_refused_in_the_user_home_and_hidden_anywhere() {
    let mut h = Harness::new(&[(".ssh/config", "needle\n"), ("a.txt", "needle\n")]);
    let key = h.user_home().join(".ssh/id_ed25519");
    std::fs::create_dir_all(key.parent().expect("parent")).expect("mkdir");
    std::fs::write(&key, "PRIVATE").expect("key");
    let shown = key.display().to_string();
    refused(
        &mut h,
        "read",
        &read(&shown),
        &shown,
        ExclusionReason::CredentialStore,
    );
    let netrc = h.user_home().join(".netrc").display().to_string();
    refused(
        &mut h,
        "read",
        &read(&netrc),
        &netrc,
        ExclusionReason::CredentialStore,
    );
    refused(
        &mut h,
        "read",
        &read(".ssh/config"),
        ".ssh/config",
        ExclusionReason::CredentialStore,
    );
    refused(
        &mut h,
        "list",
        r#"{"paths":[".ssh"],"depth":1,"include_hidden":true,"kind":"all"}"#,
        ".ssh",
        ExclusionReason::CredentialStore,
    );
    refused(
        &mut h,
        "exec",
        r#"{"program":"ls","args":[],"cwd":".ssh","env":[],"stdin":null,"timeout_ms":null, "outside_sandbox": null}"#,
        ".ssh",
        ExclusionReason::CredentialStore,
    );
    assert_eq!(answer_paths(&h.ok("list", LIST_ALL)), [".", "a.txt"]);
    let mut h = Harness::new(&[(".ssh/config", "needle\n"), ("a.txt", "needle\n")]);
    assert_eq!(answer_paths(&h.ok("search", SEARCH_ALL)), ["a.txt"]);
}

#[test]
fn ansa_sessions_inside_the_workspace_are_hidden() {
    let files = [
        (".ansa/sessions/s1/journal-000001.jsonl", "needle\n"),
        (".ansa/auth/tokens.json", "needle\n"),
        (".ansa/config.json", "{\"needle\":1}\n"),
        ("a.txt", "needle\n"),
    ];
    let mut h = Harness::setup(policy(), &files, &[], Some(".ansa"));
    assert_eq!(
        answer_paths(&h.ok("list", LIST_ALL)),
        [".", ".ansa", ".ansa/config.json", "a.txt"]
    );
    let path = ".ansa/sessions/s1/journal-000001.jsonl";
    refused(
        &mut h,
        "read",
        &read(path),
        path,
        ExclusionReason::AnsaPrivate,
    );
    refused(
        &mut h,
        "search",
        r#"{"query":"needle","paths":[".ansa/auth"],"regex":false,"case_insensitive":false,"include_hidden":true}"#,
        ".ansa/auth",
        ExclusionReason::AnsaPrivate,
    );
    let mut h = Harness::setup(policy(), &files, &[], Some(".ansa"));
    assert_eq!(
        answer_paths(&h.ok("search", SEARCH_ALL)),
        [".ansa/config.json", "a.txt"]
    );
}

#[test]
fn configured_exclude_globs_are_hidden_and_refused() {
    let files = [
        ("a.secret", "needle\n"),
        ("src/b.secret", "needle\n"),
        ("private/x.txt", "needle\n"),
        ("src/ok.rs", "needle\n"),
    ];
    let exclude = ["*.secret", "private/**"];
    let mut h = Harness::setup(policy(), &files, &exclude, None);
    assert_eq!(
        answer_paths(&h.ok("list", LIST_ALL)),
        [".", "private", "src", "src/ok.rs"],
        "`private/**` matches what is below `private`, not the directory itself"
    );
    refused(
        &mut h,
        "read",
        &read("src/b.secret"),
        "src/b.secret",
        ExclusionReason::Configured("*.secret".into()),
    );
    refused(
        &mut h,
        "read",
        &read("private/x.txt"),
        "private/x.txt",
        ExclusionReason::Configured("private/**".into()),
    );
    let mut h = Harness::setup(policy(), &files, &exclude, None);
    assert_eq!(answer_paths(&h.ok("search", SEARCH_ALL)), ["src/ok.rs"]);
}

#[test]
fn dotenv_and_credential_names_match_whatever_their_case() {
    let files = [
        (".ENV", "needle=1\n"),
        ("sub/.Env.Local", "needle=2\n"),
        (".SSH/id_rsa", "needle=3\n"),
        ("a.txt", "needle\n"),
    ];
    let mut h = Harness::new(&files);
    assert_eq!(answer_paths(&h.ok("search", SEARCH_ALL)), ["a.txt"]);
    refused(
        &mut h,
        "read",
        &read(".ENV"),
        ".ENV",
        ExclusionReason::Dotenv,
    );
    refused(
        &mut h,
        "read",
        &read("sub/.Env.Local"),
        "sub/.Env.Local",
        ExclusionReason::Dotenv,
    );
    refused(
        &mut h,
        "read",
        &read(".SSH/id_rsa"),
        ".SSH/id_rsa",
        ExclusionReason::CredentialStore,
    );
}

#[test]
fn another_hard_link_to_a_hidden_file_is_refused_and_never_searched() {
    let mut h = Harness::new(&[(".env", "needle=secret\n"), ("a.txt", "needle\n")]);
    std::fs::hard_link(h.dir.path().join(".env"), h.dir.path().join("notes.txt")).unwrap();
    refused(
        &mut h,
        "read",
        &read("notes.txt"),
        "notes.txt",
        ExclusionReason::HardLinked,
    );
    refused(
        &mut h,
        "edit",
        &edit("notes.txt"),
        "notes.txt",
        ExclusionReason::HardLinked,
    );
    assert_eq!(answer_paths(&h.ok("search", SEARCH_ALL)), ["a.txt"]);
    let text = h.ok(
        "search",
        r#"{"query":"secret","paths":["."],"regex":false,"case_insensitive":false,"include_hidden":true}"#,
    );
    assert!(!text.contains("secret"), "{text}");
    assert_eq!(h.file(".env"), "needle=secret\n", "nothing was changed");
}

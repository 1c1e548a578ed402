//! Capture (`m:0`): exact answers and manifests, hidden entries, depth, roots, `.ash`.

use crate::client::*;
use tempfile::TempDir;

/// `.`, `a.txt`, `dir`, `dir/b.txt`, `link -> a.txt`, plus hidden `.hidden` and `dir/.h2`.
pub fn small_tree() -> TempDir {
    let ws = tree(&[
        ("a.txt", b"alpha\n"),
        ("dir/b.txt", b"bee"),
        ("dir/.h2", b"x"),
        (".hidden", b"h"),
    ]);
    #[cfg(unix)]
    symlink(&ws, "a.txt", "link");
    ws
}

#[cfg(unix)]
#[test]
fn capture_answers_every_entry_and_retains_the_manifest() {
    let ws = small_tree();
    let mut c = Client::new(ws.path());
    let a = c.ask(&capture_req(1, &["."], 64, 0));
    let (alpha, bee, target) = (hash(b"alpha\n"), hash(b"bee"), hash(b"a.txt"));
    assert_eq!(
        a.text,
        format!(
            "t:3\ni:1\ns:0\np[5]{{i,v}}:\n1,.\n2,a.txt\n3,dir\n4,dir/b.txt\n5,link\n\
             d[5]{{p,c,k,z,h}}:\n1,0,1,0,~\n2,0,0,6,{alpha}\n3,0,1,0,~\n4,0,0,3,{bee}\n\
             5,0,2,0,{target}\nz:8\nr:@1\n"
        )
    );
    assert_eq!(
        c.retained(1),
        format!(
            "k:s\nv:1\nq{{p,d,f}}:\n[.],64,0\nd[5]{{p,k,z,h}}:\n.,1,0,~\na.txt,0,6,{alpha}\n\
             dir,1,0,~\ndir/b.txt,0,3,{bee}\nlink,2,0,{target}\n"
        )
    );
    // The same capture again retains identical bytes: same alias, and known paths reuse ids.
    let a = c.ask(&capture_req(2, &["."], 64, 0));
    assert!(a.response.paths.is_empty(), "{}", a.text);
    assert!(a.text.ends_with("z:8\nr:@1\n"), "{}", a.text);
    assert_eq!(c.session.store().len(), 1);
}

#[cfg(unix)]
#[test]
fn hidden_entries_need_flag_one() {
    let ws = small_tree();
    let mut c = Client::new(ws.path());
    let a = c.ask(&capture_req(1, &["."], 64, 1));
    let expected = vec![
        dir_row(".", 0),
        file_row(".hidden", 0, b"h"),
        file_row("a.txt", 0, b"alpha\n"),
        dir_row("dir", 0),
        file_row("dir/.h2", 0, b"x"),
        file_row("dir/b.txt", 0, b"bee"),
        link_row("link", 0, "a.txt"),
    ];
    assert_eq!(c.rows(&a), expected);
    assert_eq!(c.retained(1), manifest("[.],64,1", &expected));
    // A hidden root itself is never filtered.
    let a = c.ask(&capture_req(2, &[".hidden"], 0, 0));
    assert_eq!(c.rows(&a), vec![file_row(".hidden", 0, b"h")]);
}

#[cfg(unix)]
#[test]
fn depth_bounds_the_walk() {
    let ws = small_tree();
    let mut c = Client::new(ws.path());
    let a = c.ask(&capture_req(1, &["."], 0, 0));
    assert_eq!(c.rows(&a), vec![dir_row(".", 0)]);
    assert_eq!(c.retained(1), manifest("[.],0,0", &c.rows(&a)));
    let a = c.ask(&capture_req(2, &["."], 1, 0));
    assert_eq!(
        c.rows(&a),
        vec![
            dir_row(".", 0),
            file_row("a.txt", 0, b"alpha\n"),
            dir_row("dir", 0),
            link_row("link", 0, "a.txt"),
        ]
    );
    let a = c.ask(&capture_req(3, &["dir"], 1, 0));
    assert_eq!(
        c.rows(&a),
        vec![dir_row("dir", 0), file_row("dir/b.txt", 0, b"bee")]
    );
}

#[test]
fn roots_are_merged_and_a_file_root_is_one_entry() {
    let ws = tree(&[("a.txt", b"alpha\n"), ("dir/b.txt", b"bee"), ("e", b"")]);
    let mut c = Client::new(ws.path());
    let a = c.ask(&capture_req(1, &["a.txt", "dir", "dir/b.txt"], 1, 0));
    let expected = vec![
        file_row("a.txt", 0, b"alpha\n"),
        dir_row("dir", 0),
        file_row("dir/b.txt", 0, b"bee"),
    ];
    assert_eq!(c.rows(&a), expected);
    assert_eq!(
        c.retained(1),
        manifest("[a.txt,dir,dir/b.txt],1,0", &expected)
    );
    // An empty file has size 0 and the digest of no bytes.
    let a = c.ask(&capture_req(2, &["e"], 0, 0));
    assert_eq!(c.rows(&a), vec![file_row("e", 0, b"")]);
}

#[cfg(unix)]
#[test]
fn links_inside_the_walk_are_hashed_by_target_bytes_and_never_followed() {
    let outside = tree(&[("secret", b"s")]);
    let ws = tree(&[("d/f", b"f")]);
    symlink(&ws, outside.path().join("secret"), "d/out");
    symlink(&ws, "nowhere", "d/dangling");
    symlink(&ws, ".", "d/self");
    let mut c = Client::new(ws.path());
    let a = c.ask(&capture_req(1, &["d"], 64, 0));
    let out = outside.path().join("secret");
    assert_eq!(
        c.rows(&a),
        vec![
            dir_row("d", 0),
            link_row("d/dangling", 0, "nowhere"),
            file_row("d/f", 0, b"f"),
            link_row("d/out", 0, out.to_str().expect("UTF-8 temp path")),
            link_row("d/self", 0, "."),
        ]
    );
}

#[test]
fn the_state_directory_is_skipped_and_reserved() {
    let ws = tree(&[
        (".ash/FORMAT", b"ash-workspace-state-v1\n"),
        (".ash/x", b"x"),
        ("a", b"a"),
    ]);
    let mut c = Client::new(ws.path());
    let a = c.ask(&capture_req(1, &["."], 64, 1));
    assert_eq!(c.rows(&a), vec![dir_row(".", 0), file_row("a", 0, b"a")]);
    assert_eq!(
        c.ask(&capture_req(2, &[".ash"], 1, 1)).text,
        error(2, 3, 300, 0, 3)
    );
}

#[test]
fn snapshot_runs_through_ash_run() {
    let ws = tree(&[("a.txt", b"alpha\n")]);
    let input = "t:1\ni:24\no:s\na{p,d,m,r,f}:\n[.],64,0,~,0\nu{tok,rec,ms}:\n512,64,30000\n";
    let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_ash"))
        .arg("run")
        .current_dir(ws.path())
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("spawn ash");
    std::io::Write::write_all(
        &mut child.stdin.take().expect("stdin is piped"),
        input.as_bytes(),
    )
    .expect("write request");
    let out = child.wait_with_output().expect("ash run finishes");
    assert_eq!(out.status.code(), Some(0));
    assert_eq!(
        String::from_utf8(out.stdout).expect("UTF-8 answer"),
        format!(
            "t:3\ni:24\ns:0\np[2]{{i,v}}:\n1,.\n2,a.txt\nd[2]{{p,c,k,z,h}}:\n1,0,1,0,~\n\
             2,0,0,6,{}\nz:8\nr:@1\n",
            hash(b"alpha\n")
        )
    );
}

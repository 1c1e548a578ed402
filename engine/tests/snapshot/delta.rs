//! Delta (`m:1`): the ordered merge, chaining, and the baseline rules.

use crate::client::*;
use std::fs;

const DOT: &[&str] = &["."];

#[cfg(unix)]
#[test]
fn delta_lists_added_modified_and_removed_entries_only() {
    let ws = tree(&[
        ("a.txt", b"alpha\n"),
        ("dir/b.txt", b"bee"),
        ("keep.txt", b"same"),
    ]);
    symlink(&ws, "a.txt", "link");
    let mut c = Client::new(ws.path());
    let a = c.ask(&capture_req(1, DOT, 64, 0));
    assert_eq!(reference(&a), 1);

    write(&ws, "a.txt", b"ALPHA!\n");
    fs::remove_file(ws.path().join("dir/b.txt")).expect("remove");
    write(&ws, "c.txt", b"new");
    fs::remove_file(ws.path().join("link")).expect("unlink");
    symlink(&ws, "keep.txt", "link");
    let a = c.ask(&delta_req(2, DOT, 64, 0, 1));
    assert_eq!(
        a.text,
        format!(
            "t:3\ni:2\ns:0\np[1]{{i,v}}:\n7,c.txt\nd[4]{{p,c,k,z,h}}:\n2,2,0,7,{}\n7,1,0,3,{}\n\
             4,3,0,3,{}\n6,2,2,0,{}\nz:8\nr:@2\n",
            hash(b"ALPHA!\n"),
            hash(b"new"),
            hash(b"bee"),
            hash(b"keep.txt")
        )
    );
    // The new manifest is the full current state, not the delta.
    assert_eq!(
        c.retained(2),
        manifest(
            "[.],64,0",
            &[
                dir_row(".", 0),
                file_row("a.txt", 0, b"ALPHA!\n"),
                file_row("c.txt", 0, b"new"),
                dir_row("dir", 0),
                file_row("keep.txt", 0, b"same"),
                link_row("link", 0, "keep.txt"),
            ]
        )
    );
}

#[test]
fn deltas_chain_through_each_new_manifest() {
    let ws = tree(&[("c.txt", b"new"), ("dir/x", b"x"), ("keep", b"k")]);
    let mut c = Client::new(ws.path());
    assert_eq!(reference(&c.ask(&capture_req(1, DOT, 64, 0))), 1);
    write(&ws, "keep", b"K");
    let a = c.ask(&delta_req(2, DOT, 64, 0, 1));
    assert_eq!(c.rows(&a), vec![file_row("keep", 2, b"K")]);
    assert_eq!(reference(&a), 2);

    // A file becomes a directory (kind differs), a directory tree disappears.
    fs::remove_file(ws.path().join("c.txt")).expect("remove");
    write(&ws, "c.txt/inner", b"i");
    fs::remove_dir_all(ws.path().join("dir")).expect("remove dir");
    let a = c.ask(&delta_req(3, DOT, 64, 0, 2));
    assert_eq!(
        c.rows(&a),
        vec![
            dir_row("c.txt", 2),
            file_row("c.txt/inner", 1, b"i"),
            dir_row("dir", 3),
            file_row("dir/x", 3, b"x"),
        ]
    );
    assert_eq!(reference(&a), 3);

    // Nothing changed: no rows, and identical manifest bytes keep the baseline's alias.
    let a = c.ask(&delta_req(4, DOT, 64, 0, 3));
    assert_eq!(a.text, "t:3\ni:4\ns:0\nd[0]{p,c,k,z,h}:\nz:8\nr:@3\n");
    // An older baseline still works and sees every change since.
    let a = c.ask(&delta_req(5, DOT, 64, 0, 1));
    assert_eq!(
        c.rows(&a),
        vec![
            dir_row("c.txt", 2),
            file_row("c.txt/inner", 1, b"i"),
            dir_row("dir", 3),
            file_row("dir/x", 3, b"x"),
            file_row("keep", 2, b"K"),
        ]
    );
    assert_eq!(reference(&a), 3);
}

#[test]
fn a_same_size_rewrite_is_a_modification() {
    let ws = tree(&[("f", b"aaaa")]);
    let mut c = Client::new(ws.path());
    c.ask(&capture_req(1, &["f"], 0, 0));
    write(&ws, "f", b"bbbb");
    let a = c.ask(&delta_req(2, &["f"], 0, 0, 1));
    assert_eq!(c.rows(&a), vec![file_row("f", 2, b"bbbb")]);
}

#[test]
fn the_baseline_scope_must_match_exactly() {
    let ws = tree(&[("a.txt", b"a"), ("dir/b", b"b")]);
    let mut c = Client::new(ws.path());
    c.ask(&capture_req(1, DOT, 64, 0));
    let mismatches = [
        delta_req(2, DOT, 63, 0, 1),
        delta_req(2, DOT, 64, 1, 1),
        delta_req(2, &["a.txt"], 64, 0, 1),
        delta_req(2, &[".", "dir"], 64, 0, 1),
        // Scope is checked before the roots are resolved.
        delta_req(2, &["missing"], 64, 0, 1),
    ];
    for request in mismatches {
        assert_eq!(c.ask(&request).text, error(2, 1, 100, 1, 1), "{request}");
    }
    assert_eq!(
        c.session.store().len(),
        1,
        "a refused delta retains nothing"
    );
}

#[test]
fn unknown_and_released_baselines_are_unknown_references() {
    let ws = tree(&[("a", b"a")]);
    let mut c = Client::new(ws.path());
    assert_eq!(
        c.ask(&delta_req(1, DOT, 64, 0, 9)).text,
        error(1, 4, 700, 1, 2)
    );
    // The baseline is looked up before the roots.
    assert_eq!(
        c.ask(&delta_req(2, &["missing"], 64, 0, 9)).text,
        error(2, 4, 700, 1, 2)
    );
    c.ask(&capture_req(3, DOT, 64, 0));
    let release = "t:1\ni:4\no:-\na:[@1]\nu{tok,rec,ms}:\n100,10,30000\n";
    assert!(c.ask(release).text.starts_with("t:3\ni:4\ns:0\n"));
    assert_eq!(
        c.ask(&delta_req(5, DOT, 64, 0, 1)).text,
        error(5, 4, 700, 1, 2)
    );
}

#[test]
fn a_baseline_that_is_not_a_manifest_is_an_invalid_argument() {
    // Its scope cannot equal the request's: 100, like a scope mismatch (as the reference
    // answers), whether the value is other text or only starts like a manifest.
    let ws = tree(&[("a", b"a")]);
    let mut c = Client::new(ws.path());
    let values: [&[u8]; 5] = [
        b"hello\n",
        b"k:l\nd[1]{p,k,z}:\na,0,1\n",
        b"k:s\nv:1\nq{p,d,f}:\n[.],64,0\n",
        b"k:s\nv:1\nq{p,d,f}:\n[.],64,0\nd[1]{p,k,z,h}:\na,0,1,nothex\n",
        b"\xff\xfe",
    ];
    for (i, value) in values.into_iter().enumerate() {
        let alias = c
            .session
            .store_mut()
            .retain(value.to_vec())
            .expect("retain");
        let id = i as u64 + 1;
        assert_eq!(
            c.ask(&delta_req(id, DOT, 64, 0, alias)).text,
            error(id, 1, 100, 1, 1),
            "{}",
            String::from_utf8_lossy(value)
        );
    }
}

#[test]
fn a_hand_written_manifest_is_a_valid_baseline() {
    let ws = tree(&[("a", b"a"), ("b", b"b")]);
    let mut c = Client::new(ws.path());
    // Claims `a` was different and `z` existed; `b` is missing from it.
    let text = manifest(
        "[.],1,0",
        &[
            dir_row(".", 0),
            file_row("a", 0, b"old"),
            file_row("z", 0, b"gone"),
        ],
    );
    let alias = c
        .session
        .store_mut()
        .retain(text.into_bytes())
        .expect("retain");
    let a = c.ask(&delta_req(1, DOT, 1, 0, alias));
    assert_eq!(
        c.rows(&a),
        vec![
            file_row("a", 2, b"a"),
            file_row("b", 1, b"b"),
            file_row("z", 3, b"gone"),
        ]
    );
}

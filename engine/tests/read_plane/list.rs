//! List: depth, kind filters, byte order, argument rules and merging of roots.

use crate::client::*;
use ash_engine::protocol::Status;

#[test]
fn list_depth_zero_is_the_root_alone() {
    let ws = list_tree();
    let mut c = Client::new(ws.path());
    assert_eq!(
        c.ask(&list_req(1, &["."], 0, 0, BIG)).text,
        "t:3\ni:1\ns:0\np[1]{i,v}:\n1,.\nd[1]{p,k,z}:\n1,1,0\nz:0\nr:~\n"
    );
    assert_eq!(
        c.ask(&list_req(2, &["a.txt"], 0, 0, BIG)).text,
        "t:3\ni:2\ns:0\np[1]{i,v}:\n2,a.txt\nd[1]{p,k,z}:\n2,0,3\nz:0\nr:~\n"
    );
}

#[test]
fn list_sorts_by_path_bytes_to_the_requested_depth() {
    let ws = list_tree();
    let mut c = Client::new(ws.path());
    let a = c.ask(&list_req(1, &["."], 1, 0, BIG));
    assert_eq!(
        a.text,
        "t:3\ni:1\ns:0\np[7]{i,v}:\n1,.\n2,B.txt\n3,a\n4,a-b\n5,a.txt\n6,b\n7,\"\u{e9}.txt\"\n\
         d[7]{p,k,z}:\n1,1,0\n2,0,0\n3,1,0\n4,0,2\n5,0,3\n6,1,0\n7,0,2\nz:0\nr:~\n"
    );
    // `a.txt` < `a/x` because '.' (0x2e) < '/' (0x2f): byte order, not tree order.
    let a = c.ask(&list_req(2, &["."], 2, 0, BIG));
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
            ("\u{e9}.txt", 0, Some(2)),
        ])
    );
    let a = c.ask(&list_req(3, &["."], 64, 0, BIG));
    let rows = c.list_rows(&a);
    assert_eq!(rows.len(), 11);
    assert_eq!(rows[9], ("b/d/e.txt".to_owned(), 0, Some(1)));
}

#[test]
fn list_kind_filters() {
    let ws = list_tree();
    let mut c = Client::new(ws.path());
    let a = c.ask(&list_req(1, &["."], 64, 2, BIG));
    assert_eq!(
        c.list_rows(&a),
        owned([
            ("B.txt", 0, Some(0)),
            ("a-b", 0, Some(2)),
            ("a.txt", 0, Some(3)),
            ("a/x", 0, Some(1)),
            ("b/c.txt", 0, Some(6)),
            ("b/d/e.txt", 0, Some(1)),
            ("\u{e9}.txt", 0, Some(2)),
        ])
    );
    let a = c.ask(&list_req(2, &["."], 64, 4, BIG));
    assert_eq!(
        c.list_rows(&a),
        owned([
            (".", 1, Some(0)),
            ("a", 1, Some(0)),
            ("b", 1, Some(0)),
            ("b/d", 1, Some(0))
        ])
    );
    // A file root under "directories only" yields an empty table.
    assert_eq!(
        c.ask(&list_req(3, &["a.txt"], 0, 4, BIG)).text,
        "t:3\ni:3\ns:0\nd[0]{p,k,z}:\nz:0\nr:~\n"
    );
}

#[test]
fn list_argument_rules() {
    let ws = list_tree();
    for (name, request) in [
        ("files and dirs only", list_req(1, &["."], 1, 6, BIG)),
        ("unknown flag bit", list_req(1, &["."], 1, 8, BIG)),
        ("depth 65", list_req(1, &["."], 65, 0, BIG)),
    ] {
        let mut c = Client::new(ws.path());
        assert_eq!(c.ask(&request).text, error(1, 1, 100, 1, 1), "{name}");
    }
    let mut c = Client::new(ws.path());
    assert_eq!(
        c.ask(&list_req(1, &["."], 64, 5, BIG)).response.status,
        Status::Success
    );
}

#[test]
fn list_merges_roots_and_drops_duplicates() {
    let ws = list_tree();
    let mut c = Client::new(ws.path());
    let a = c.ask(&list_req(1, &["b", ".", "b/d"], 1, 0, BIG));
    assert_eq!(
        c.list_rows(&a),
        owned([
            (".", 1, Some(0)),
            ("B.txt", 0, Some(0)),
            ("a", 1, Some(0)),
            ("a-b", 0, Some(2)),
            ("a.txt", 0, Some(3)),
            ("b", 1, Some(0)),
            ("b/c.txt", 0, Some(6)),
            ("b/d", 1, Some(0)),
            ("b/d/e.txt", 0, Some(1)),
            ("\u{e9}.txt", 0, Some(2)),
        ])
    );
    assert_eq!(
        c.ask(&list_req(2, &["b/c.txt", "b/c.txt"], 0, 0, BIG)).text,
        "t:3\ni:2\ns:0\nd[1]{p,k,z}:\n7,0,6\nz:0\nr:~\n"
    );
}

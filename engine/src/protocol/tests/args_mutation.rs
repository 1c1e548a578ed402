//! Validation tables for patch and fs arguments.

use super::{H, ID, assert_invalid, assert_invalid_doc, invalid_cases, request_doc, valid_cases};
use crate::ason::{Atom, Cell, Value};
use crate::protocol::*;

fn patch(p: &str, h: &str, i: &str, o: &str, n: &str, v: &str, f: &str) -> String {
    format!("a{{p,h,i,o,n,v,f}}:\n{p},{h},{i},{o},{n},{v},{f}")
}

fn hh(count: usize) -> String {
    format!("[{}]", vec![H; count].join(","))
}

#[test]
fn patch_valid_groups_edits_by_file() {
    let reqs = valid_cases(
        "p",
        &[
            (
                "two files",
                &patch(
                    "[a,b]",
                    &hh(2),
                    "[0,0,1]",
                    "[0,5,0]",
                    "[5,1,0]",
                    "[x,@2,\"\"]",
                    "0",
                ),
            ),
            (
                "adjacent edits",
                &patch("[a]", &hh(1), "[0,0]", "[0,5]", "[5,0]", "[x,y]", "0"),
            ),
            (
                "pure inserts",
                &patch("[a]", &hh(1), "[0,0]", "[0,1]", "[0,0]", "[x,y]", "0"),
            ),
        ],
    );
    let want = PatchArgs {
        files: vec![
            PatchFile {
                path: "a".into(),
                digest: Digest([0xaa; 32]),
                edits: vec![
                    Edit {
                        offset: 0,
                        delete: 5,
                        insert: Content::Text("x".into()),
                    },
                    Edit {
                        offset: 5,
                        delete: 1,
                        insert: Content::Ref(2),
                    },
                ],
            },
            PatchFile {
                path: "b".into(),
                digest: Digest([0xaa; 32]),
                edits: vec![Edit {
                    offset: 0,
                    delete: 0,
                    insert: Content::Text(String::new()),
                }],
            },
        ],
    };
    assert_eq!(reqs[0].op, Op::Patch(want));
}

#[test]
fn patch_invalid() {
    let upper = format!("[{}]", H.to_uppercase());
    let short = format!("[{}]", &H[..63]);
    let ok = |p: &str| patch(p, &hh(1), "[0]", "[0]", "[1]", "[x]", "0");
    let cases: Vec<(&str, String, &str)> = vec![
        (
            "paths unsorted",
            patch("[b,a]", &hh(2), "[0,1]", "[0,0]", "[1,1]", "[x,y]", "0"),
            "a.p item 2",
        ),
        (
            "paths duplicate",
            patch("[a,a]", &hh(2), "[0,1]", "[0,0]", "[1,1]", "[x,y]", "0"),
            "a.p item 2",
        ),
        (
            "no paths",
            patch("[]", "[]", "[]", "[]", "[]", "[]", "0"),
            "a.p",
        ),
        ("empty path", ok("[\"\"]"), "a.p item 1"),
        (
            "digest count",
            patch("[a,b]", &hh(1), "[0,1]", "[0,0]", "[1,1]", "[x,y]", "0"),
            "a.h",
        ),
        (
            "digest uppercase",
            patch("[a]", &upper, "[0]", "[0]", "[1]", "[x]", "0"),
            "a.h item 1",
        ),
        (
            "digest short",
            patch("[a]", &short, "[0]", "[0]", "[1]", "[x]", "0"),
            "a.h item 1",
        ),
        (
            "digest null",
            patch("[a]", "[~]", "[0]", "[0]", "[1]", "[x]", "0"),
            "a.h item 1",
        ),
        (
            "no edits",
            patch("[a]", &hh(1), "[]", "[]", "[]", "[]", "0"),
            "a.i",
        ),
        (
            "o shorter",
            patch("[a]", &hh(1), "[0,0]", "[0]", "[1,1]", "[x,y]", "0"),
            "a",
        ),
        (
            "n longer",
            patch("[a]", &hh(1), "[0]", "[0]", "[1,1]", "[x]", "0"),
            "a",
        ),
        (
            "v shorter",
            patch("[a]", &hh(1), "[0]", "[0]", "[1]", "[]", "0"),
            "a",
        ),
        (
            "file index out of range",
            patch("[a]", &hh(1), "[1]", "[0]", "[1]", "[x]", "0"),
            "a.i item 1",
        ),
        (
            "file index text",
            patch("[a]", &hh(1), "[x]", "[0]", "[1]", "[x]", "0"),
            "a.i item 1",
        ),
        (
            "files descending",
            patch("[a,b]", &hh(2), "[1,0]", "[0,0]", "[1,1]", "[x,y]", "0"),
            "a.o item 2",
        ),
        (
            "offsets descending",
            patch("[a]", &hh(1), "[0,0]", "[5,0]", "[1,1]", "[x,y]", "0"),
            "a.o item 2",
        ),
        (
            "same offset",
            patch("[a]", &hh(1), "[0,0]", "[3,3]", "[0,0]", "[x,y]", "0"),
            "a.o item 2",
        ),
        (
            "overlap",
            patch("[a]", &hh(1), "[0,0]", "[0,2]", "[5,1]", "[x,y]", "0"),
            "a.o item 2",
        ),
        (
            "end overflows",
            patch(
                "[a]",
                &hh(1),
                "[0]",
                "[18446744073709551615]",
                "[1]",
                "[x]",
                "0",
            ),
            "a.n item 1",
        ),
        (
            "path without edit",
            patch("[a,b]", &hh(2), "[0,0]", "[0,1]", "[1,1]", "[x,y]", "0"),
            "a.p item 2",
        ),
        (
            "replacement null",
            patch("[a]", &hh(1), "[0]", "[0]", "[1]", "[~]", "0"),
            "a.v item 1",
        ),
        (
            "replacement @0",
            patch("[a]", &hh(1), "[0]", "[0]", "[1]", "[@0]", "0"),
            "a.v item 1",
        ),
        (
            "offset leading zero",
            patch("[a]", &hh(1), "[0]", "[01]", "[1]", "[x]", "0"),
            "a.o item 1",
        ),
        (
            "flags 1",
            patch("[a]", &hh(1), "[0]", "[0]", "[1]", "[x]", "1"),
            "a.f",
        ),
        (
            "flags null",
            patch("[a]", &hh(1), "[0]", "[0]", "[1]", "[x]", "~"),
            "a.f",
        ),
        (
            "p scalar",
            patch("a", &hh(1), "[0]", "[0]", "[1]", "[x]", "0"),
            "a.p",
        ),
        (
            "i scalar",
            patch("[a]", &hh(1), "0", "[0]", "[1]", "[x]", "0"),
            "a.i",
        ),
    ];
    let cases: Vec<(&str, &str, &str)> = cases
        .iter()
        .map(|(n, a, at)| (*n, a.as_str(), *at))
        .collect();
    invalid_cases("p", &cases);
}

fn patch_value(replacements: Vec<Atom>) -> Value {
    let n = replacements.len();
    let idx = |f: &dyn Fn(usize) -> u64| Cell::Vector((0..n).map(|k| Atom::uint(f(k))).collect());
    Value::record(
        &["p", "h", "i", "o", "n", "v", "f"],
        vec![
            Cell::Vector(vec![Atom::text("a")]),
            Cell::Vector(vec![Atom::text(H)]),
            idx(&|_| 0),
            idx(&|k| k as u64),
            idx(&|_| 0),
            Cell::Vector(replacements),
            Cell::Atom(Atom::uint(0)),
        ],
    )
}

#[test]
fn patch_inline_ceilings() {
    let mib = Atom::text("x".repeat(MIB));
    let ok = request_doc("p", patch_value(vec![mib.clone(); 8]));
    assert!(
        Request::from_document(&ok).is_ok(),
        "8 × 1 MiB is the total ceiling"
    );
    let total = request_doc("p", patch_value(vec![mib; 9]));
    assert_invalid_doc("total over 8 MiB", &total, "a.v");
    let one = request_doc("p", patch_value(vec![Atom::text("x".repeat(MIB + 1))]));
    assert_invalid_doc("replacement over 1 MiB", &one, "a.v item 1");
}

fn fs(rows: &[&str]) -> String {
    format!("a[{}]{{i,k,p,q,h,v}}:\n{}", rows.len(), rows.join("\n"))
}

#[test]
fn fs_valid_shapes() {
    let copy = format!("2,1,a,b,{H},~");
    let mv = format!("3,2,c,d,{H},~");
    let rm = format!("9,3,e,~,{H},~");
    let reqs = valid_cases(
        "f",
        &[(
            "every kind",
            &fs(&["1,0,new.txt,~,~,\"hi\"", &copy, &mv, &rm, "10,0,f,~,~,@4"]),
        )],
    );
    let Op::Fs(args) = &reqs[0].op else {
        panic!("fs")
    };
    let kinds: Vec<(u64, FsKind, &str, Option<&str>)> = args
        .actions
        .iter()
        .map(|a| (a.id, a.op.kind(), a.op.path(), a.op.destination()))
        .collect();
    assert_eq!(
        kinds,
        [
            (1, FsKind::Create, "new.txt", None),
            (2, FsKind::Copy, "a", Some("b")),
            (3, FsKind::Move, "c", Some("d")),
            (9, FsKind::Remove, "e", None),
            (10, FsKind::Create, "f", None),
        ]
    );
    assert_eq!(
        args.actions[4].op,
        FsOp::Create {
            path: "f".into(),
            content: Content::Ref(4)
        }
    );
}

#[test]
fn fs_invalid() {
    let c = |id: &str, from: &str, to: &str| format!("{id},1,{from},{to},{H},~");
    let many: Vec<String> = (1..=257).map(|i| format!("{i},0,f{i},~,~,x")).collect();
    let many: Vec<&str> = many.iter().map(String::as_str).collect();
    let cases: Vec<(&str, String, &str)> = vec![
        ("no rows", "a[0]{i,k,p,q,h,v}:".into(), "a"),
        ("257 rows", fs(&many), "a"),
        ("record", "a{i,k,p,q,h,v}:\n1,0,a,~,~,x".into(), "a"),
        ("columns", "a[1]{i,k,p,h,q,v}:\n1,0,a,~,~,x".into(), "a"),
        ("id 0", fs(&["0,0,a,~,~,x"]), "a row 1, column i"),
        (
            "ids descending",
            fs(&["2,0,a,~,~,x", "1,0,b,~,~,x"]),
            "a row 2, column i",
        ),
        (
            "ids repeated",
            fs(&["1,0,a,~,~,x", "1,0,b,~,~,x"]),
            "a row 2, column i",
        ),
        ("kind 4", fs(&["1,4,a,~,~,x"]), "a row 1, column k"),
        ("kind null", fs(&["1,~,a,~,~,x"]), "a row 1, column k"),
        ("empty path", fs(&["1,0,\"\",~,~,x"]), "a row 1, column p"),
        ("null path", fs(&["1,0,~,~,~,x"]), "a row 1, column p"),
        ("create with q", fs(&["1,0,a,b,~,x"]), "a row 1, column q"),
        (
            "create with h",
            fs(&[&format!("1,0,a,~,{H},x")]),
            "a row 1, column h",
        ),
        (
            "create without content",
            fs(&["1,0,a,~,~,~"]),
            "a row 1, column v",
        ),
        (
            "create content @0",
            fs(&["1,0,a,~,~,@0"]),
            "a row 1, column v",
        ),
        (
            "copy without destination",
            fs(&[&c("1", "a", "~")]),
            "a row 1, column q",
        ),
        (
            "copy empty destination",
            fs(&[&c("1", "a", "\"\"")]),
            "a row 1, column q",
        ),
        (
            "copy without digest",
            fs(&["1,1,a,b,~,~"]),
            "a row 1, column h",
        ),
        (
            "copy uppercase digest",
            fs(&[&format!("1,1,a,b,{},~", H.to_uppercase())]),
            "a row 1, column h",
        ),
        (
            "copy with content",
            fs(&[&format!("1,1,a,b,{H},x")]),
            "a row 1, column v",
        ),
        (
            "move without digest",
            fs(&["1,2,a,b,~,~"]),
            "a row 1, column h",
        ),
        (
            "move with content",
            fs(&[&format!("1,2,a,b,{H},@1")]),
            "a row 1, column v",
        ),
        (
            "remove with destination",
            fs(&[&format!("1,3,a,b,{H},~")]),
            "a row 1, column q",
        ),
        (
            "remove without digest",
            fs(&["1,3,a,~,~,~"]),
            "a row 1, column h",
        ),
        (
            "remove with content",
            fs(&[&format!("1,3,a,~,{H},x")]),
            "a row 1, column v",
        ),
        ("copy onto itself", fs(&[&c("1", "a", "a")]), "a row 1"),
        (
            "create then remove",
            fs(&["1,0,a,~,~,x", &format!("2,3,a,~,{H},~")]),
            "a row 2",
        ),
        (
            "two copies to one name",
            fs(&[&c("1", "a", "z"), &c("2", "b", "z")]),
            "a row 2",
        ),
        (
            "copy source reused",
            fs(&[&c("1", "a", "y"), &c("2", "a", "z")]),
            "a row 2",
        ),
        (
            "move onto created",
            fs(&["1,0,z,~,~,x", &format!("2,2,a,z,{H},~")]),
            "a row 2",
        ),
    ];
    let cases: Vec<(&str, &str, &str)> = cases
        .iter()
        .map(|(n, a, at)| (*n, a.as_str(), *at))
        .collect();
    invalid_cases("f", &cases);
}

#[test]
fn fs_rows_must_fit_the_budget() {
    let a = fs(&["1,0,a,~,~,x", "2,0,b,~,~,x"]);
    let with = |u: &str| format!("t:1\ni:{ID}\no:f\n{a}\nu{{tok,rec,ms}}:\n{u}\n");
    super::assert_valid("N = tok = rec", &with("2,2,1"));
    assert_invalid("N > tok", &with("1,2,1"), "a");
    assert_invalid("N > rec", &with("2,1,1"), "a");
}

#[test]
fn fs_inline_ceilings() {
    let table = |contents: Vec<Atom>| {
        let rows = contents
            .into_iter()
            .enumerate()
            .map(|(k, v)| {
                vec![
                    Cell::Atom(Atom::uint(k as u64 + 1)),
                    Cell::Atom(Atom::uint(0)),
                    Cell::Atom(Atom::text(format!("f{k}"))),
                    Cell::Atom(Atom::Null),
                    Cell::Atom(Atom::Null),
                    Cell::Atom(v),
                ]
            })
            .collect();
        Value::table(&["i", "k", "p", "q", "h", "v"], rows)
    };
    let mib = Atom::text("x".repeat(MIB));
    assert!(Request::from_document(&request_doc("f", table(vec![mib.clone(); 8]))).is_ok());
    assert_invalid_doc(
        "total over 8 MiB",
        &request_doc("f", table(vec![mib; 9])),
        "a row 9, column v",
    );
    let one = request_doc("f", table(vec![Atom::text("x".repeat(MIB + 1))]));
    assert_invalid_doc("content over 1 MiB", &one, "a row 1, column v");
}

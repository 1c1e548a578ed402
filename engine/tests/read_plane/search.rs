//! Search: first match per line, byte columns, ordering, literal/regex/case flags, argument
//! rules, CRLF and non-UTF-8 files, and the file ceiling.

use crate::client::*;

#[test]
fn search_reports_the_first_match_of_each_line_with_byte_columns() {
    let ws = tree(&[(
        "m.txt",
        "h\u{e9}llo needle needle\nno match\nneedle\nlast needle".as_bytes(),
    )]);
    let mut c = Client::new(ws.path());
    assert_eq!(
        c.ask(&search_req(1, "needle", &["m.txt"], 0, BIG)).text,
        "t:3\ni:1\ns:0\np[1]{i,v}:\n1,m.txt\nd[3]{p,l,c,t}:\n\
         1,1,8,\"h\u{e9}llo needle needle\"\n1,3,1,needle\n1,4,6,\"last needle\"\nz:0\nr:~\n"
    );
    // A multibyte match: the column counts bytes before it.
    let a = c.ask(&search_req(2, "\u{e9}llo", &["."], 0, BIG));
    assert_eq!(
        a.text,
        "t:3\ni:2\ns:0\nd[1]{p,l,c,t}:\n1,1,2,\"h\u{e9}llo needle needle\"\nz:0\nr:~\n"
    );
    // No match: an empty table.
    let a = c.ask(&search_req(3, "absent", &["."], 0, BIG));
    assert_eq!(a.text, "t:3\ni:3\ns:0\nd[0]{p,l,c,t}:\nz:0\nr:~\n");
}

#[test]
fn search_rows_are_sorted_by_path_bytes_then_line() {
    let ws = tree(&[
        ("b.txt", b"needle\n"),
        ("a/z.txt", b"x\nneedle\n"),
        ("a.txt", b"needle\nneedle\n"),
        ("Z.txt", b"needle\n"),
    ]);
    let mut c = Client::new(ws.path());
    let a = c.ask(&search_req(1, "needle", &["b.txt", "."], 0, BIG));
    assert_eq!(
        c.search_rows(&a),
        hits([
            ("Z.txt", 1, 1, "needle"),
            ("a.txt", 1, 1, "needle"),
            ("a.txt", 2, 1, "needle"),
            ("a/z.txt", 2, 1, "needle"),
            ("b.txt", 1, 1, "needle"),
        ])
    );
    // One dictionary row per file.
    assert_eq!(a.response.paths.len(), 4);
}

#[test]
fn search_literal_regex_and_case_flags() {
    let ws = tree(&[(
        "t.txt",
        b"Needle\nnEEDLE\nneedle\nnedle\nneeedle\na.b\naxb\nsay \"needle\"\n",
    )]);
    let mut c = Client::new(ws.path());
    // Case-sensitive by default: no line holds `NEEDLE`.
    let a = c.ask(&search_req(1, "NEEDLE", &["."], 0, BIG));
    assert_eq!(a.text, "t:3\ni:1\ns:0\nd[0]{p,l,c,t}:\nz:0\nr:~\n");
    let a = c.ask(&search_req(2, "NEEDLE", &["."], 2, BIG));
    assert_eq!(
        c.search_rows(&a),
        hits([
            ("t.txt", 1, 1, "Needle"),
            ("t.txt", 2, 1, "nEEDLE"),
            ("t.txt", 3, 1, "needle"),
            ("t.txt", 8, 6, "say \"needle\""),
        ])
    );
    let a = c.ask(&search_req(3, "ne+dle", &["."], 1, BIG));
    assert_eq!(
        c.search_rows(&a),
        hits([
            ("t.txt", 3, 1, "needle"),
            ("t.txt", 4, 1, "nedle"),
            ("t.txt", 5, 1, "neeedle"),
            ("t.txt", 8, 6, "say \"needle\""),
        ])
    );
    let a = c.ask(&search_req(4, "^NE+DLE$", &["."], 3, BIG));
    assert_eq!(
        c.search_rows(&a),
        hits([
            ("t.txt", 1, 1, "Needle"),
            ("t.txt", 2, 1, "nEEDLE"),
            ("t.txt", 3, 1, "needle"),
            ("t.txt", 4, 1, "nedle"),
            ("t.txt", 5, 1, "neeedle"),
        ])
    );
    // A literal query is not a pattern.
    let a = c.ask(&search_req(5, "a.b", &["."], 0, BIG));
    assert_eq!(c.search_rows(&a), hits([("t.txt", 6, 1, "a.b")]));
    // The text cell is escaped.
    let a = c.ask(&search_req(6, "say", &["."], 0, BIG));
    assert_eq!(
        a.text,
        "t:3\ni:6\ns:0\nd[1]{p,l,c,t}:\n1,8,1,\"say \\\"needle\\\"\"\nz:0\nr:~\n"
    );
}

#[test]
fn search_argument_rules() {
    let ws = tree(&[("t.txt", b"needle\n")]);
    for (name, request) in [
        ("unbalanced group", search_req(1, "(", &["."], 1, BIG)),
        ("unknown class", search_req(1, "\\p{Nope}", &["."], 1, BIG)),
        (
            "case-insensitive bad regex",
            search_req(1, "[z-a]", &["."], 3, BIG),
        ),
        ("unknown flag bit", search_req(1, "needle", &["."], 8, BIG)),
        ("empty query", search_req(1, "", &["."], 0, BIG)),
    ] {
        let mut c = Client::new(ws.path());
        assert_eq!(c.ask(&request).text, error(1, 1, 100, 1, 1), "{name}");
    }
    // `(` is fine as a literal.
    let mut c = Client::new(ws.path());
    assert_eq!(
        c.ask(&search_req(1, "(", &["."], 0, BIG)).text,
        "t:3\ni:1\ns:0\nd[0]{p,l,c,t}:\nz:0\nr:~\n"
    );
}

#[test]
fn crlf_files_set_the_normalized_bit_even_without_rows() {
    let ws = tree(&[
        ("crlf.txt", b"alpha\r\nbeta\r\n"),
        ("plain.txt", b"needle\n"),
    ]);
    let mut c = Client::new(ws.path());
    assert_eq!(
        c.ask(&search_req(1, "needle", &["."], 0, BIG)).text,
        "t:3\ni:1\ns:0\np[1]{i,v}:\n1,plain.txt\nd[1]{p,l,c,t}:\n1,1,1,needle\nz:4\nr:~\n"
    );
    assert_eq!(
        c.ask(&search_req(2, "absent", &["."], 0, BIG)).text,
        "t:3\ni:2\ns:0\nd[0]{p,l,c,t}:\nz:4\nr:~\n"
    );
    // The CR is stripped from the text, and `$` matches before it.
    assert_eq!(
        c.ask(&search_req(3, "^beta$", &["crlf.txt"], 1, BIG)).text,
        "t:3\ni:3\ns:0\np[1]{i,v}:\n2,crlf.txt\nd[1]{p,l,c,t}:\n2,2,1,beta\nz:4\nr:~\n"
    );
    // Files outside the roots do not count.
    assert_eq!(
        c.ask(&search_req(4, "needle", &["plain.txt"], 0, BIG)).text,
        "t:3\ni:4\ns:0\nd[1]{p,l,c,t}:\n1,1,1,needle\nz:0\nr:~\n"
    );
    // A lone CR is not a line end: kept in the text, no normalized bit.
    let ws = tree(&[("cr.txt", b"a\rb needle\n")]);
    let mut c = Client::new(ws.path());
    assert_eq!(
        c.ask(&search_req(1, "needle", &["."], 0, BIG)).text,
        "t:3\ni:1\ns:0\np[1]{i,v}:\n1,cr.txt\nd[1]{p,l,c,t}:\n1,1,5,\"a\\rb needle\"\nz:0\nr:~\n"
    );
}

#[test]
fn non_utf8_files_are_skipped_as_partial() {
    let ws = tree(&[("bin.dat", b"needle \xff\n"), ("ok.txt", b"needle\n")]);
    let mut c = Client::new(ws.path());
    assert_eq!(
        c.ask(&search_req(1, "needle", &["."], 0, BIG)).text,
        "t:3\ni:1\ns:0\np[1]{i,v}:\n1,ok.txt\nd[1]{p,l,c,t}:\n1,1,1,needle\nz:16\nr:~\n"
    );
    assert_eq!(
        c.ask(&search_req(2, "needle", &["bin.dat"], 0, BIG)).text,
        "t:3\ni:2\ns:0\nd[0]{p,l,c,t}:\nz:16\nr:~\n"
    );
    std::fs::write(ws.path().join("crlf.txt"), b"x\r\n").expect("write crlf.txt");
    assert_eq!(
        c.ask(&search_req(3, "needle", &["."], 0, BIG)).text,
        "t:3\ni:3\ns:0\nd[1]{p,l,c,t}:\n1,1,1,needle\nz:20\nr:~\n"
    );
}

#[test]
fn search_file_ceiling_is_601() {
    let ws = tree(&[("ok.txt", b"needle\n")]);
    let big = std::fs::File::create(ws.path().join("big.bin")).expect("create big.bin");
    big.set_len(64 * 1024 * 1024 + 1)
        .expect("sparse 64 MiB + 1");
    let mut c = Client::new(ws.path());
    assert_eq!(
        c.ask(&search_req(1, "needle", &["."], 0, BIG)).text,
        error(1, 9, 601, 1, 4)
    );
}

//! Read: byte and line modes, argument rules, shared ids, retained non-UTF-8 and over-budget
//! text, and the file ceiling.

use crate::client::*;
use ash_engine::protocol::{Data, Status};
use tempfile::TempDir;

/// Reads `path`, the session's first path (id 1), once per `(offset, count, row)` case with ids
/// 1, 2, …, in `mode`; `{h}` in an expected row stands for the file's hash `h`.
fn assert_read_cases(c: &mut Client, path: &str, mode: u8, h: &str, cases: &[(u64, u64, &str)]) {
    for (i, &(offset, count, row)) in cases.iter().enumerate() {
        let id = i as u64 + 1;
        let delta = if id == 1 {
            format!("p[1]{{i,v}}:\n1,{path}\n")
        } else {
            String::new()
        };
        let row = format!("1,{}", row.replace("{h}", h));
        assert_eq!(
            c.ask(&read_req(id, &[path], mode, offset, count, BIG)).text,
            read_answer(id, &delta, &row, 0),
            "o={offset} n={count}"
        );
    }
}

/// A workspace of `a` and `b` (200 bytes of `a` and of `b`) and `c` (`small`): the workspace, the
/// two large contents and the hashes of `a`, `b` and `c`.
fn two_large_one_small() -> (TempDir, String, String, [String; 3]) {
    let a200 = "a".repeat(200);
    let b200 = "b".repeat(200);
    let ws = tree(&[
        ("a", a200.as_bytes()),
        ("b", b200.as_bytes()),
        ("c", b"small"),
    ]);
    let hashes = [hash(a200.as_bytes()), hash(b200.as_bytes()), hash(b"small")];
    (ws, a200, b200, hashes)
}

#[test]
fn read_byte_mode_clamps_to_the_file() {
    let content = b"hello world\n";
    let h = hash(content);
    let ws = tree(&[("h.txt", content)]);
    let mut c = Client::new(ws.path());
    let cases: [(u64, u64, &str); 6] = [
        (6, 5, "6,5,{h},world,~"),
        (6, 100, "6,6,{h},\"world\\n\",~"),
        (0, 1, "0,1,{h},h,~"),
        (0, 12, "0,12,{h},\"hello world\\n\",~"),
        (12, 5, "12,0,{h},\"\",~"),
        (100, 5, "12,0,{h},\"\",~"),
    ];
    assert_read_cases(&mut c, "h.txt", 0, &h, &cases);
}

#[test]
fn read_line_mode_counts_lf_terminated_lines() {
    let content = b"one\ntwo\nthree";
    let h = hash(content);
    let ws = tree(&[
        ("l.txt", content),
        ("empty.txt", b""),
        ("crlf.txt", b"a\r\nb\r\n"),
    ]);
    let mut c = Client::new(ws.path());
    let cases: [(u64, u64, &str); 6] = [
        (1, 1, "1,1,{h},\"one\\n\",~"),
        (2, 1, "2,1,{h},\"two\\n\",~"),
        (2, 5, "2,2,{h},\"two\\nthree\",~"),
        (3, 1, "3,1,{h},three,~"),
        (1, 3, "1,3,{h},\"one\\ntwo\\nthree\",~"),
        (4, 1, "4,0,{h},\"\",~"),
    ];
    assert_read_cases(&mut c, "l.txt", 1, &h, &cases);
    let empty = hash(b"");
    assert_eq!(
        c.ask(&read_req(10, &["empty.txt"], 1, 1, 1, BIG)).text,
        read_answer(
            10,
            "p[1]{i,v}:\n2,empty.txt\n",
            &format!("2,1,0,{empty},\"\",~"),
            0
        )
    );
    assert_eq!(
        c.ask(&read_req(11, &["empty.txt"], 0, 0, 1, BIG)).text,
        read_answer(11, "", &format!("2,0,0,{empty},\"\",~"), 0)
    );
    // Read does not normalise line ends.
    assert_eq!(
        c.ask(&read_req(12, &["crlf.txt"], 1, 2, 1, BIG)).text,
        read_answer(
            12,
            "p[1]{i,v}:\n3,crlf.txt\n",
            &format!("3,2,1,{},\"b\\r\\n\",~", hash(b"a\r\nb\r\n")),
            0
        )
    );
}

#[test]
fn read_argument_rules() {
    let ws = tree(&[("a.txt", b"abc\n")]);
    for (name, request) in [
        ("count 0", read_req(1, &["a.txt"], 0, 0, 0, BIG)),
        ("line 0", read_req(1, &["a.txt"], 1, 0, 1, BIG)),
        ("mode 2", read_req(1, &["a.txt"], 2, 0, 1, BIG)),
        ("no paths", read_req(1, &[], 0, 0, 1, BIG)),
    ] {
        let mut c = Client::new(ws.path());
        assert_eq!(c.ask(&request).text, error(1, 1, 100, 1, 1), "{name}");
    }
    // Byte offset 0 is fine.
    let mut c = Client::new(ws.path());
    assert_eq!(
        c.ask(&read_req(1, &["a.txt"], 0, 0, 1, BIG))
            .response
            .status,
        Status::Success
    );
}

#[test]
fn duplicate_read_paths_share_one_id() {
    let ws = tree(&[("h.txt", b"hi\n"), ("l.txt", b"lo\n")]);
    let (hh, hl) = (hash(b"hi\n"), hash(b"lo\n"));
    let mut c = Client::new(ws.path());
    assert_eq!(
        c.ask(&read_req(1, &["h.txt", "l.txt", "h.txt"], 0, 0, 2, BIG))
            .text,
        format!(
            "t:3\ni:1\ns:0\np[2]{{i,v}}:\n1,h.txt\n2,l.txt\nd[3]{{p,o,n,h,t,r}}:\n\
             1,0,2,{hh},hi,~\n2,0,2,{hl},lo,~\n1,0,2,{hh},hi,~\nz:0\nr:~\n"
        )
    );
}

#[test]
fn non_utf8_selections_are_retained_exactly() {
    let content = b"ab\xffcd\xc3\xa9";
    let h = hash(content);
    let ws = tree(&[("bin.dat", content)]);
    let mut c = Client::new(ws.path());
    assert_eq!(
        c.ask(&read_req(1, &["bin.dat"], 0, 1, 3, BIG)).text,
        read_answer(1, "p[1]{i,v}:\n1,bin.dat\n", &format!("1,1,3,{h},~,@1"), 10)
    );
    assert_eq!(c.retained(1), b"b\xffc");
    // A valid slice of the same file is inline.
    assert_eq!(
        c.ask(&read_req(2, &["bin.dat"], 0, 3, 2, BIG)).text,
        read_answer(2, "", &format!("1,3,2,{h},cd,~"), 0)
    );
    // Half a character is not UTF-8.
    assert_eq!(
        c.ask(&read_req(3, &["bin.dat"], 0, 5, 1, BIG)).text,
        read_answer(3, "", &format!("1,5,1,{h},~,@2"), 10)
    );
    assert_eq!(c.retained(2), b"\xc3");
    // The whole character is text.
    assert_eq!(
        c.ask(&read_req(4, &["bin.dat"], 0, 5, 2, BIG)).text,
        read_answer(4, "", &format!("1,5,2,{h},\"\u{e9}\",~"), 0)
    );
    // Line mode too; the whole file is one unterminated line.
    assert_eq!(
        c.ask(&read_req(5, &["bin.dat"], 1, 1, 1, BIG)).text,
        read_answer(5, "", &format!("1,1,1,{h},~,@3"), 10)
    );
    assert_eq!(c.retained(3), content);
}

#[test]
fn text_over_half_the_limit_is_retained() {
    // tok 100 → L = 400 → inline budget 200 encoded bytes.
    let budget = (100, 10);
    let x200 = "x".repeat(200);
    let x201 = "x".repeat(201);
    let lf99 = "\n".repeat(99);
    let lf100 = "\n".repeat(100);
    let ws = tree(&[
        ("x200", x200.as_bytes()),
        ("x201", x201.as_bytes()),
        ("lf99", lf99.as_bytes()),
        ("lf100", lf100.as_bytes()),
    ]);
    let mut c = Client::new(ws.path());
    let a = c.ask(&read_req(1, &["x200"], 0, 0, 1000, budget));
    assert_eq!(
        a.text,
        read_answer(
            1,
            "p[1]{i,v}:\n1,x200\n",
            &format!("1,0,200,{},{x200},~", hash(x200.as_bytes())),
            0
        )
    );
    let a = c.ask(&read_req(2, &["x201"], 0, 0, 1000, budget));
    assert_eq!(
        a.text,
        read_answer(
            2,
            "p[1]{i,v}:\n2,x201\n",
            &format!("2,0,201,{},~,@1", hash(x201.as_bytes())),
            10
        )
    );
    assert_eq!(c.retained(1), x201.as_bytes());
    // The budget counts encoded bytes: 99 LFs encode to 2 + 198 = 200 bytes, 100 LFs to 202.
    let a = c.ask(&read_req(3, &["lf99"], 0, 0, 1000, budget));
    assert_eq!(a.response.status, Status::Success);
    assert!(
        matches!(&a.response.data, Some(Data::Read(rows)) if rows[0].text.as_deref() == Some(lf99.as_str()))
    );
    let a = c.ask(&read_req(4, &["lf100"], 0, 0, 1000, budget));
    assert_eq!(
        a.text,
        read_answer(
            4,
            "p[1]{i,v}:\n4,lf100\n",
            &format!("4,0,100,{},~,@2", hash(lf100.as_bytes())),
            10
        )
    );
    assert_eq!(c.retained(2), lf100.as_bytes());
}

#[test]
fn inline_text_is_budgeted_cumulatively_in_request_order() {
    let budget = (150, 10); // L = 600, inline budget 300
    let (ws, a200, b200, [ha, hb, hc]) = two_large_one_small();
    let mut c = Client::new(ws.path());
    // `a` fits (200), `b` would make 400 and is retained; `c` still fits beside `a` (205).
    assert_eq!(
        c.ask(&read_req(1, &["a", "b", "c"], 0, 0, 1000, budget))
            .text,
        format!(
            "t:3\ni:1\ns:0\np[3]{{i,v}}:\n1,a\n2,b\n3,c\nd[3]{{p,o,n,h,t,r}}:\n\
             1,0,200,{ha},{a200},~\n2,0,200,{hb},~,@1\n3,0,5,{hc},small,~\nz:10\nr:~\n"
        )
    );
    assert_eq!(c.retained(1), b200.as_bytes());
}

#[test]
fn inline_text_moves_out_last_row_first_until_the_answer_fits() {
    // tok 120: L = 480, inline budget 240. `a` and `c` are inline by the budget, but the answer
    // would be 511 bytes (with 20-digit references), so `c` and then `a` are retained too.
    // Aliases still follow the rows.
    let (ws, a200, b200, [ha, hb, hc]) = two_large_one_small();
    let mut c = Client::new(ws.path());
    assert_eq!(
        c.ask(&read_req(1, &["a", "b", "c"], 0, 0, 1000, (120, 10)))
            .text,
        format!(
            "t:3\ni:1\ns:0\np[3]{{i,v}}:\n1,a\n2,b\n3,c\nd[3]{{p,o,n,h,t,r}}:\n\
             1,0,200,{ha},~,@1\n2,0,200,{hb},~,@2\n3,0,5,{hc},~,@3\nz:10\nr:~\n"
        )
    );
    assert_eq!(c.retained(1), a200.as_bytes());
    assert_eq!(c.retained(2), b200.as_bytes());
    assert_eq!(c.retained(3), b"small");
}

#[test]
fn retained_rows_get_aliases_in_row_order_and_share_identical_content() {
    let ws = tree(&[("n1", b"\xff1"), ("n2", b"\xff2")]);
    let (h1, h2) = (hash(b"\xff1"), hash(b"\xff2"));
    let mut c = Client::new(ws.path());
    assert_eq!(
        c.ask(&read_req(1, &["n2", "n1", "n2"], 0, 0, 10, BIG)).text,
        format!(
            "t:3\ni:1\ns:0\np[2]{{i,v}}:\n1,n2\n2,n1\nd[3]{{p,o,n,h,t,r}}:\n\
             1,0,2,{h2},~,@1\n2,0,2,{h1},~,@2\n1,0,2,{h2},~,@1\nz:10\nr:~\n"
        )
    );
    assert_eq!(c.retained(1), b"\xff2");
    assert_eq!(c.retained(2), b"\xff1");
    assert_eq!(c.session.store().len(), 2);
}

#[test]
fn read_file_ceiling_is_601() {
    let ws = tree(&[]);
    let big = std::fs::File::create(ws.path().join("huge.bin")).expect("create huge.bin");
    big.set_len(128 * 1024 * 1024 + 1)
        .expect("sparse 128 MiB + 1");
    let mut c = Client::new(ws.path());
    assert_eq!(
        c.ask(&read_req(1, &["huge.bin"], 0, 0, 1, BIG)).text,
        error(1, 9, 601, 1, 4)
    );
}
